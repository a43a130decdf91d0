import Beacon

extension Renderer {
    /// One row per destination, shown only when there is more than one, the facts first so
    /// that 80 columns keep them: name, pending, delivery rate, state (with the attempt and
    /// the time to the next retry), oldest pending age, then STALLED and the error from its
    /// code on (or the last success). The selected destination's whole error, failures,
    /// next retry and endpoint go on a detail line under the rows when there is room.
    mutating func drawDestinations(y: Int, rows: Int) {
        drawSectionTitle("Destinations", detail: "· pending · rate · state · oldest · error", y: y)
        let destinations = snapshot.destinations
        let hasDetail = rows > destinations.count || (rows >= 3 && destinations.count > rows)
        let listRows = hasDetail ? rows - 1 : rows
        let selected = min(max(0, state.selectedDestination), max(0, destinations.count - 1))
        let first = min(max(0, selected - listRows + 1), max(0, destinations.count - listRows))
        let nameWidth = min(12, max(4, destinations.map { DisplayWidth.of($0.name) }.max() ?? 4))
        for (row, index) in (first..<destinations.count).prefix(listRows).enumerated() {
            drawDestinationRow(destinations[index], marked: index == selected && !isMonitor, nameWidth: nameWidth, y: y + 1 + row)
        }
        if hasDetail, destinations.indices.contains(selected) {
            drawDestinationDetail(destinations[selected], y: y + 1 + listRows)
        }
    }

    private mutating func drawDestinationRow(_ destination: DestinationStatus, marked: Bool, nameWidth: Int, y: Int) {
        let state = compactState(destination)
        let age = destination.oldestPendingAge(at: snapshot.time)
        var x = grid.write([
            Span((marked ? "▸" : " ") + destination.name.elidedRight(toWidth: nameWidth).padRight(nameWidth), .bold),
            Span(Format.count(destination.depth).padLeft(9)),
            // What it delivers: an unknown rate is left blank, not shown as 0/s.
            Span((destination.deliveryRate.map(Format.rate) ?? "").padLeft(8), .dim),
            Span("  "),
            Span(state.text.elidedRight(toWidth: 19).padRight(19), state.style),
            Span((age.map { Format.elapsed(milliseconds: $0) } ?? "-").padLeft(7),
                 (age ?? 0) > DestinationStatus.stallThreshold.inMilliseconds ? .warn : .normal),
            Span("  "),
        ], x: 0, y: y, maxWidth: width)
        if destination.stalled, x + 8 < width {
            x += grid.write("STALLED ", x: x, y: y, style: .error)
        }
        let note: Span
        if let error = destination.lastError {
            note = Span(error, .error)
        } else if let success = destination.lastSuccessAt {
            note = Span("ok \(Format.elapsed(milliseconds: snapshot.time.millisecondsSince1970 - success.millisecondsSince1970)) ago", .dim)
        } else {
            note = Span(destination.endpoint, .dim)
        }
        if x < width - 1 { grid.write(note.text.elidedRight(toWidth: width - x - 1), x: x, y: y, style: note.style) }
    }

    /// The selected destination in full: failures, next retry and stall as times of day,
    /// the share of requests that failed, time to drain at its rate, then its whole error
    /// (or last success) and endpoint.
    private mutating func drawDestinationDetail(_ destination: DestinationStatus, y: Int) {
        // Facts first, the error after them (it is the longest, and the row above shows its
        // start): what does not fit 80 columns is the error's end, never a count or a time.
        var spans: [Span] = [Span(" ▸ " + destination.name + ": ", .bold)]
        if destination.consecutiveFailures > 0 {
            let failures = destination.consecutiveFailures
            spans.append(Span("\(Format.count(failures)) failure\(failures == 1 ? "" : "s") in a row  ", .warn))
        }
        if let next = destination.state.nextRetryAt {
            spans.append(Span("next retry \(Format.timeOfDay(millisecondsSince1970: next.millisecondsSince1970)) UTC  ", .warn))
        }
        if destination.stalled, let since = destination.stalledSince(at: snapshot.time) {
            spans.append(Span("stalled since \(Format.timeOfDay(millisecondsSince1970: since.millisecondsSince1970)) UTC  ", .error))
        }
        if let since = destination.failingSince {
            spans.append(Span("failing since \(Format.timeOfDay(millisecondsSince1970: since.millisecondsSince1970)) UTC  ", .error))
        }
        if let rate = destination.failureRate, rate > 0 {
            spans.append(Span("\(Format.percent(rate)) of the last requests failed  ", .warn))
        }
        switch destination.drain {
        case .seconds(let drain):
            if let milliseconds = Int64(exactly: (min(drain, 1e9) * 1000).rounded()) {
                spans.append(Span("drains in ~\(Format.elapsed(milliseconds: milliseconds))  "))
            }
        case .notDraining:
            spans.append(Span("not draining: events arrive as fast as they leave  ", .warn))
        case .unknown:
            break
        }
        if let error = destination.lastError { spans.append(Span(error + "  ", .error)) }
        if destination.lastError == nil, let success = destination.lastSuccessAt {
            spans.append(Span("ok \(Format.elapsed(milliseconds: snapshot.time.millisecondsSince1970 - success.millisecondsSince1970)) ago  ", .dim))
        }
        spans.append(Span(destination.endpoint, .dim))
        grid.write(spans, x: 0, y: y, maxWidth: width)
    }

    /// A destination's state in at most 19 columns: `retry #4 in 31.0 s` (the attempt
    /// that comes next), `paused: credentials`, `paused by operator`, …
    func compactState(_ destination: DestinationStatus) -> Span {
        if isMonitor, destination.state != .pausedByOperator { return Span("unknown", .dim) }
        switch destination.state {
        case .starting: return Span("starting", .dim)
        case .idle: return Span("idle")
        case .sending: return Span("sending", .ok)
        case .backingOff(let until):
            let wait = max(0, until.millisecondsSince1970 - snapshot.time.millisecondsSince1970)
            let attempt = destination.consecutiveFailures < Int.max ? destination.consecutiveFailures + 1 : Int.max
            return Span("retry #\(attempt) in \(Format.elapsed(milliseconds: wait))", .warn)
        case .paused: return Span("paused: credentials", .error)
        case .pausedByOperator: return Span("paused by operator", .warn)
        case .offline: return Span("offline", .warn)
        }
    }
}

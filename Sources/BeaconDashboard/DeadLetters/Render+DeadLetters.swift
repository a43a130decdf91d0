import Beacon

extension Renderer {
    /// The dead-letter view (`d`), in place of the history and destinations: one line per
    /// letter (mark, id, destination, HTTP status, attempts, age, reason) and the selected
    /// one's payload preview under it, the list scrolled to keep the cursor in sight; or
    /// the open letter's detail pane.
    mutating func drawDeadLetters(y: Int, rows: Int) {
        if let detail = state.workbench.detail {
            drawDeadLetterDetail(detail, y: y, rows: rows)
            return
        }
        let (letters, total) = state.workbench.letters(in: snapshot)
        let query = state.workbench.query
        var shown = query.isEmpty
            ? (total > letters.count ? "· newest \(letters.count) of \(Format.count(total))" : "· \(Format.count(total))")
            : "· \(Format.count(total)) match '\(query)'" + (total > letters.count ? ", newest \(letters.count) shown" : "")
        if !state.workbench.marked.isEmpty { shown += " · \(state.workbench.marked.count) marked" }
        drawSectionTitle("Dead letters", detail: shown + (isMonitor ? " · read-only" : ""), y: y)
        guard rows >= 1 else { return }
        guard !letters.isEmpty else {
            let empty = query.isEmpty
                ? " no dead letters: every event refused for good would be listed here with its reason"
                : " no dead letter matches '\(query)': / changes the search, an empty search lists all"
            grid.write(empty, x: 0, y: y + 1, style: .dim, maxWidth: width)
            return
        }
        let cursor = min(state.deadLetterCursor, letters.count - 1)
        // The selected letter takes two lines (its preview under it).
        let listRows = max(1, rows - 1)
        let first = min(max(0, cursor - listRows + 1), max(0, letters.count - listRows))
        var line = y + 1
        for index in first..<letters.count {
            guard line < y + 1 + rows else { break }
            let letter = letters[index]
            let selected = index == cursor
            let marked = state.workbench.marked.contains(letter.id)
            let age = Format.elapsed(milliseconds: snapshot.time.millisecondsSince1970 - letter.failedAt.millisecondsSince1970)
            let head = (selected ? "▶" : " ") + (marked ? "●" : " ") + String(letter.id).padLeft(6) + " "
                + letter.destination.elidedRight(toWidth: 10).padRight(10) + " " + (letter.status.map(String.init) ?? "-").padLeft(3)
                + " " + (letter.attempts > 1 ? "×\(letter.attempts)" : "").padLeft(3) + " " + age.padLeft(6) + "  "
            let x = grid.write(head, x: 0, y: line, style: selected ? .inverse : (marked ? .bold : .normal), maxWidth: width)
            // The reason first (its code, then the event by messageId); the name and the rest are in the detail pane.
            let reason = letter.reason.elidedRight(toWidth: max(0, width - x - 1))
            grid.write(reason, x: x, y: line, style: selected ? .inverse : .error, maxWidth: width - x)
            line += 1
            if selected, line < y + 1 + rows {
                grid.write("        " + letter.preview.elidedRight(toWidth: max(0, width - 9)), x: 0, y: line, style: .dim, maxWidth: width)
                line += 1
            }
        }
    }

    /// Per-destination timing in a few words: a stall marker, the share of requests
    /// failing, the oldest pending event's age, since when it fails or its last success;
    /// empty when there is nothing to say.
    func timing(of destination: DestinationStatus) -> [Span] {
        var spans: [Span] = destination.stalled ? [Span("STALLED", .error)] : []
        // The share failing before the times: at 80 columns, beside "retrying in 450 ms (1
        // failure)", what does not fit is left out, and that should be a time, not the why.
        if let rate = destination.failureRate, rate > 0 {
            spans.append(Span("\(Format.percent(rate)) of requests failing", .warn))
        }
        if let age = destination.oldestPendingAge(at: snapshot.time) {
            spans.append(Span("oldest \(Format.elapsed(milliseconds: age))", age > DestinationStatus.stallThreshold.inMilliseconds ? .warn : .normal))
        }
        if let since = destination.failingSince {
            // Since when it is failing: its first failed request after its last delivery.
            let failing = max(0, snapshot.time.millisecondsSince1970 - since.millisecondsSince1970)
            spans.append(Span("failing for \(Format.elapsed(milliseconds: failing))", .error))
        } else if let success = destination.lastSuccessAt {
            spans.append(Span("ok \(Format.elapsed(milliseconds: snapshot.time.millisecondsSince1970 - success.millisecondsSince1970)) ago", .dim))
        }
        if case .notDraining = destination.drain { spans.append(Span("not draining", .warn)) }
        return spans
    }
}

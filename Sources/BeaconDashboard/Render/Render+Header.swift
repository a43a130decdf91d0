import Beacon
import BeaconWire

extension Renderer {
    /// Line 1: status, policy, batch size (`unknown` when the snapshot does not say) and mode. Line 2: endpoint and store. Line 3:
    /// what the sender is doing and, in the demo, the generator and fault knobs. Line 4,
    /// when remote configuration reports: its version, last sync and problems.
    mutating func drawHeader(lines: Int) {
        drawTitleLine()
        if lines >= 2 { drawWhereLine(y: 1) }
        if lines >= 3 { drawActivityLine(y: 2) }
        if lines >= 4 { drawRemoteConfigLine(y: 3) }
    }

    var isMonitor: Bool { state.mode == .monitor || snapshot.isReadOnlyMonitor }
    /// Attached to another process's engine, and its control channel answers.
    var isAttached: Bool { state.mode == .attached && !snapshot.isReadOnlyMonitor }

    private mutating func drawTitleLine() {
        let modeTag = isMonitor ? Span(snapshot.engineLostAt == nil ? " MONITOR (read-only) " : " ENGINE LOST ", .inverse)
            : isAttached ? Span(state.isReadOnlyByChoice ? " MONITOR (attached, read-only) " : " MONITOR (attached) ", .accent)
            : Span(" DEMO ", .accent)
        let tag = state.caption.map { caption in
            let mode = snapshot.engineLostAt != nil ? "ENGINE LOST" : isMonitor ? "read-only" : isAttached ? "attached" : "demo"
            // The caption is cut, never the mode: whether the engine answers stays in sight.
            return Span(" " + caption.elidedRight(toWidth: max(8, width / 2 - mode.count - 3)) + " · \(mode) ", .accent)
        } ?? modeTag
        // A read-only monitor sees the store only, which does not record whether its
        // writer is offline: it says so instead of showing the default as a fact.
        let status = isMonitor ? Span("UNKNOWN", .dim) : snapshot.isOffline ? Span("OFFLINE", .warn) : Span("ONLINE", .ok)
        var left: [Span] = [Span(" BEACON ", .inverse), Span(" "), status]
        let batch: [Span] = [Span("  batch ", .dim), snapshot.batchSize.map { Span(Format.count($0)) } ?? Self.unknown]
        let tagWidth = DisplayWidth.of(tag.text) + 1
        var room = width - left.displayWidth - tagWidth - DisplayWidth.of("  policy ")
        let includeBatch = room - batch.displayWidth >= 8
        if includeBatch { room -= batch.displayWidth }
        if room >= 4 {
            let policy = snapshot.policy.map { Span($0.description.elidedRight(toWidth: room)) }
                ?? Span(Self.unknown.text.elidedRight(toWidth: room), Self.unknown.style)
            left += [Span("  policy ", .dim), policy]
        }
        if includeBatch { left += batch }
        grid.write(left, x: 0, y: 0)
        grid.write([tag], x: width - tagWidth + 1, y: 0)
    }

    /// A destination state no engine reports: a monitor reading a store nobody serves, or
    /// one whose engine stopped answering (which may still be there).
    var unknownState: Span {
        Span(snapshot.engineLostAt == nil ? "state unknown (no engine)" : "state unknown (engine lost)", .dim)
    }

    /// A setting the snapshot does not know (a monitor reading another process's store).
    private static let unknown = Span("unknown", .dim)

    private mutating func drawWhereLine(y: Int) {
        let endpointLabel = " endpoint "
        let storeLabel = "  store "
        let labels = DisplayWidth.of(endpointLabel) + DisplayWidth.of(storeLabel)
        let endpoint = snapshot.endpoint.isEmpty ? "(none)" : snapshot.endpoint
        let store = snapshot.storePath.isEmpty ? "(none)" : snapshot.storePath
        // The disk under it, after the path when both fit whole: how much the store takes
        // and how much is left (a disk nearly full has a line of its own).
        let disk = snapshot.disk.map { " (\(Format.bytes($0.storeBytes)), \(Format.bytes($0.freeBytes)) free)" } ?? ""
        let room = width - labels - 1
        let diskText = DisplayWidth.of(endpoint) + DisplayWidth.of(store) + DisplayWidth.of(disk) <= room ? disk : ""
        let pathRoom = room - DisplayWidth.of(diskText)
        let endpointRoom = min(DisplayWidth.of(endpoint), max(pathRoom / 2, pathRoom - DisplayWidth.of(store)))
        let endpointText = endpoint.elidedRight(toWidth: endpointRoom)
        let storeText = store.elidedLeft(toWidth: pathRoom - DisplayWidth.of(endpointText))
        grid.write([
            Span(endpointLabel, .dim), Span(endpointText), Span(storeLabel, .dim), Span(storeText), Span(diskText, .dim),
        ], x: 0, y: y)
    }

    /// The destination's state first, then the demo's fault when one is injected; then its
    /// timing, memory-held events and the demo knobs, each shown only when it fits whole.
    private mutating func drawActivityLine(y: Int) {
        let spans: [Span] = [Span(snapshot.destinations.count > 1 ? " destinations " : " destination ", .dim), senderSummary]
        var groups: [[Span]] = []
        // A fault the demo injects is why the state is what it is: right after it, before
        // the times (at 80 columns it fell off the line once `ok … ago` showed).
        let faulting = !isMonitor && !isAttached && state.faultPreset != .none
        if faulting {
            groups.append([Span("  faults ", .dim), Span(state.faultPreset.rawValue, .warn)])
        }
        if snapshot.destinations.count == 1 {
            groups += timing(of: snapshot.destinations[0]).map { [Span("  "), $0] }
        } else if snapshot.destinations.contains(where: \.stalled) {
            groups.append([Span("  "), Span("STALLED", .error)])
        }
        if snapshot.buffered > 0 {
            groups.append([Span("  in memory ", .dim), Span(Format.count(snapshot.buffered), .warn)])
        }
        if isMonitor {
            groups.append([Span("   engine keys disabled", .dim)])
        } else if isAttached {
            groups.append([Span(state.isReadOnlyByChoice ? "   keys change nothing (--read-only)" : "   keys act on the engine (y confirms)", .dim)])
        } else {
            let rate = state.generatorRate == 0 ? "off" : Format.rate(Double(state.generatorRate))
            groups += [[Span("   generator ", .dim), Span(rate)]]
            if !faulting { groups.append([Span("  faults ", .dim), Span(state.faultPreset.rawValue)]) }
            groups += [
                [Span("  burst ", .dim), Span(Format.count(state.burstSize))],
            ]
        }
        writeFitting([spans] + groups, y: y)
    }

    /// The single destination's state, or a count when there are several.
    private var senderSummary: Span {
        switch snapshot.destinations.count {
        case 0:
            // A store nobody serves does not say what its writer would do.
            if isMonitor { return unknownState }
            // No destination has reported yet: the engine is starting, not idle.
            return snapshot.isOffline ? Span("offline", .warn) : Span("starting", .dim)
        case 1:
            return describe(snapshot.destinations[0])
        default:
            // Read from a store no engine serves: only an operator's pause is recorded there,
            // as the rows show; the rest is not known (it read "1 paused, 1 idle" after a kill -9).
            if isMonitor {
                let paused = snapshot.destinations.count { $0.state == .pausedByOperator }
                let unknown = snapshot.destinations.count - paused
                let lost = snapshot.engineLostAt == nil ? "no engine" : "engine lost"
                return Span((paused > 0 ? "\(paused) paused by operator, " : "") + "\(unknown) unknown (\(lost))", .dim)
            }
            // How many are in each state, worst first: "0 of 2 busy" hid a backoff.
            let states = snapshot.destinations.map(\.state)
            let counts: [(String, Int)] = [
                ("retrying", states.count { $0.nextRetryAt != nil }), ("paused", states.count(where: \.isPaused)),
                ("offline", states.count { $0 == .offline }), ("sending", states.count { $0 == .sending }),
                ("idle", states.count { $0 == .idle }), ("starting", states.count { $0 == .starting }),
            ]
            let text = counts.filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
            return Span(text, states.contains { $0.nextRetryAt != nil || $0.isPaused } ? .warn : .normal)
        }
    }

    /// A destination's state in words, measured from the snapshot's time.
    func describe(_ destination: DestinationStatus) -> Span {
        // Read from a store no engine serves: only an operator's pause is recorded there.
        if isMonitor, destination.state != .pausedByOperator { return unknownState }
        let failures = destination.consecutiveFailures
        let failureNote = failures > 0 ? " (\(failures) failure\(failures == 1 ? "" : "s"))" : ""
        switch destination.state {
        case .starting:
            return Span("starting", .dim)
        case .idle:
            return Span("idle" + failureNote)
        case .sending:
            return Span("sending" + failureNote, .ok)
        case .backingOff(let until):
            let wait = until.millisecondsSince1970 - snapshot.time.millisecondsSince1970
            return Span("retrying in \(Format.elapsed(milliseconds: wait))" + failureNote, .warn)
        case .paused(let reason):
            return Span("paused: \(reason)", .error)
        case .pausedByOperator:
            return Span("paused by operator", .warn)
        case .offline:
            return Span("offline", .warn)
        }
    }

    /// The engine the monitor was attached to stopped answering: since when, first of all.
    mutating func drawEngineLost(_ lostAt: Timestamp, y: Int) {
        let ago = snapshot.time.millisecondsSince1970 - lostAt.millisecondsSince1970
        let text = " ENGINE LOST at \(Format.timeOfDay(millisecondsSince1970: lostAt.millisecondsSince1970)) UTC "
            + "(\(Format.elapsed(milliseconds: max(0, ago))) ago): \(snapshot.engineLostReason ?? "nothing serves this store")"
        grid.fill(x: 0, y: y, width: width, style: .error)
        grid.write(text.elidedRight(toWidth: width - 1), x: 0, y: y, style: .error)
    }

    /// The disk-low line, where the queue-full line goes (a full queue comes first): what
    /// is left and how soon it is gone at the current inflow.
    mutating func drawDiskLow(y: Int) {
        guard snapshot.isDiskLow, let disk = snapshot.disk else { return }
        var text = " DISK LOW: \(Format.bytes(disk.freeBytes)) free of \(Format.bytes(disk.totalBytes))"
            + " (store \(Format.bytes(disk.storeBytes)))"
        if let full = snapshot.diskFullInSeconds, let milliseconds = Int64(exactly: (min(full, 1e9) * 1000).rounded()) {
            text += " · full in ~\(Format.elapsed(milliseconds: milliseconds)) at this inflow"
        }
        grid.fill(x: 0, y: y, width: width, style: .error)
        grid.write(text.elidedRight(toWidth: width - 1), x: 0, y: y, style: .error)
    }

    /// The queue-full line, where the storage fault line goes (a fault comes first).
    mutating func drawQueueFull(y: Int) {
        guard snapshot.isQueueFull, let bounds = snapshot.queueBounds else { return drawDiskLow(y: y) }
        let held = Format.count(snapshot.depth + snapshot.buffered)
        // What the bound does here, first (what is being lost): the agent's ingest refuses
        // new events, anything else drops the oldest.
        let does = snapshot.fullQueueRefusesNew
            ? "new events refused (\(Format.count(snapshot.totals.refused)) so far)" : "oldest events dropped"
        let text = " QUEUE FULL: \(does) · \(held) of \(Format.count(bounds.maxEvents)) events, "
            + "\(Format.bytes(snapshot.queuedBytes)) of \(Format.bytes(bounds.maxBytes))"
        grid.fill(x: 0, y: y, width: width, style: .error)
        grid.write(text.elidedRight(toWidth: width - 1), x: 0, y: y, style: .error)
    }

    /// The storage fault line, right under the header.
    mutating func drawStorageProblem(y: Int) {
        if let lostAt = snapshot.engineLostAt { return drawEngineLost(lostAt, y: y) }
        guard let problem = snapshot.storageProblem else { return drawQueueFull(y: y) }
        let age = snapshot.time.millisecondsSince1970 - problem.since.millisecondsSince1970
        grid.fill(x: 0, y: y, width: width, style: .error)
        grid.write(" storage problem for \(Format.elapsed(milliseconds: age)): \(problem.description)".elidedRight(toWidth: width - 1),
                   x: 0, y: y, style: .error)
    }
}

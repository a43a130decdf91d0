import Beacon
import BeaconDashboard
import BeaconWire
import Logging
import Synchronization

/// `beacon monitor` attached to the engine serving the store: the store's snapshots with
/// the engine's real settings laid over them (streamed by the control channel's `watch`),
/// and the dashboard's engine actions sent as control commands. When the engine closes the
/// stream or its snapshots stop coming, the overlay goes and the screen turns read-only
/// again; when one starts, the monitor attaches.
final class MonitorAttachment: Sendable {
    let client: ControlClient
    let logger: Logger
    /// How often the engine sends its `status`, and how often a monitor with no engine
    /// looks for one.
    let interval: Duration
    /// The engine's latest `status`, and when it came.
    private let latest = Mutex<(status: JSONValue, at: ContinuousClock.Instant)?>(nil)
    /// Whether an engine was attached, and when it stopped answering (nil while it answers
    /// or none ever did).
    private let contact = Mutex<(attached: Bool, lostAt: Timestamp?)>((false, nil))
    /// The store's latest snapshot and where the overlaid ones go, so that each status the
    /// engine streams is shown at once, not only when the store's file changes (a fleet
    /// reads an unchanged store every 10 s: its countdowns and ages would stand still).
    private let relayed = Mutex<Relay>(Relay())

    private struct Relay {
        var store: EngineSnapshot?
        var continuation: AsyncStream<EngineSnapshot>.Continuation?
        var status: JSONValue?
        var at: ContinuousClock.Instant?
    }

    /// An unchanged status is shown again at most this often (ages and countdowns move on).
    static let restampInterval = Duration.seconds(1)

    /// A `status` older than this is not laid over the screen: the engine stopped answering.
    var staleAfter: Duration { max(.seconds(2), interval * 4) }

    init(client: ControlClient, interval: Duration = .milliseconds(500), logger: Logger) {
        self.client = client
        self.interval = interval
        self.logger = logger
    }

    /// What asking for the engine's `status` found.
    enum Probe: Sendable {
        /// Nothing listens on the store's control socket.
        case noEngine
        /// The engine's `status`.
        case answered(JSONValue)
        /// Something listens but gave no status (busy past the bound, a refusal, a broken
        /// connection or an answer that is not a response): an engine may be serving the
        /// store, so what it is doing is unknown. One line.
        case noStatus(String)

        /// The status, when one came.
        var status: JSONValue? {
            if case .answered(let status) = self { return status }
            return nil
        }
    }

    /// Asks the engine whether it serves the store, within 2 seconds.
    static func probe(_ client: ControlClient) async -> Probe {
        switch await ControlCall.outcome(client, .status, within: .seconds(2)) {
        case .noEngine: return .noEngine
        case .failed(let reason): return .noStatus(reason)
        case .response(let response):
            switch response.outcome {
            case .success(let status): return .answered(status)
            case .failure(let refusal): return .noStatus("the engine refused status: \(refusal.reason)")
            }
        }
    }

    /// The store's snapshots, with the engine's settings laid over each while it answers.
    func snapshots(from store: AsyncStream<EngineSnapshot>) -> AsyncStream<EngineSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: EngineSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        relayed.withLock { $0.continuation = continuation }
        let poller = Task { await self.poll() }
        // The loop runs in a function the task calls, not in the task's own closure (see
        // `SnapshotInbox.init`: Swift 6.3 miscompiled such a task as the snapshot grew).
        let relay = Task { await self.relay(store, to: continuation) }
        continuation.onTermination = { _ in
            poller.cancel()
            relay.cancel()
        }
        return stream
    }

    /// Yields each of `store` with the engine's settings laid over it, then finishes.
    private func relay(_ store: AsyncStream<EngineSnapshot>, to continuation: AsyncStream<EngineSnapshot>.Continuation) async {
        for await snapshot in store {
            // Under the lock, so that a restamp of the snapshot before never follows this one.
            relayed.withLock { relay in
                relay.store = snapshot
                continuation.yield(overlay(snapshot))
            }
        }
        relayed.withLock { $0.continuation = nil }
        continuation.finish()
    }

    /// A status came: the store's latest snapshot, timed now, with it laid over, when the
    /// status changed or an unchanged one was last shown ``restampInterval`` ago. With no
    /// engine (`nil`), the same once a second while something on the screen ages (events
    /// pending, or the time since the engine was lost); an empty store stays asleep.
    private func restamp(with status: JSONValue?) {
        let now = ContinuousClock.now
        let lost = contact.withLock { $0.lostAt != nil }
        relayed.withLock { relay in
            guard var store = relay.store, let continuation = relay.continuation else { return }
            if status == nil, store.depth == 0, !lost { return }
            if relay.status == status, let at = relay.at, now - at < Self.restampInterval { return }
            relay.status = status
            relay.at = now
            store.time = .now()
            // Under the lock (overlay takes only `latest` and `contact`, never this one): in order with the relay's.
            continuation.yield(overlay(store))
        }
    }

    /// Sends an engine action as a control command and says what the engine answered
    /// (the screen shows a refusal with its reason); refusals also go to the log.
    func perform(_ action: DashboardAction) async -> CommandAnswer {
        // The reducer sends no demo action when attached.
        guard let command = action.controlCommand else { return .applied }
        let answer: CommandAnswer
        do {
            let response = try await ControlCall.answer(client, command, within: .seconds(5))
            switch response.outcome {
            case .success:
                answer = .applied
            case .failure(let refusal):
                logger.warning("the engine refused a command", metadata: ["command": "\(command.name)", "reason": "\(refusal.reason)"])
                answer = .refused(PrintableText.line(refusal.reason))
            }
        } catch {
            logger.warning("a command did not reach the engine", metadata: ["command": "\(command.name)", "error": "\(error)"])
            answer = .noAnswer(PrintableText.line("\(error)"))
        }
        await refresh()
        return answer
    }

    func overlay(_ snapshot: EngineSnapshot) -> EngineSnapshot {
        guard let (status, at) = latest.withLock({ $0 }), ContinuousClock.now - at < staleAfter else {
            // An engine that was attached and stopped answering is lost: the screen says since when.
            let lostAt = contact.withLock { contact -> Timestamp? in
                if contact.attached && contact.lostAt == nil { contact.lostAt = .now() }
                return contact.lostAt
            }
            var readOnly = snapshot
            readOnly.engineLostAt = lostAt
            if lostAt != nil {
                // Gone, or there and silent: the socket tells them apart.
                readOnly.engineLostReason = client.somethingListens
                    ? "the engine is there but silent" : "nothing serves this store"
            }
            return readOnly
        }
        contact.withLock { $0 = (true, nil) }
        var attached = snapshot
        attached.isReadOnlyMonitor = false
        guard let report = EngineStatusReport(json: status) else {
            // An engine that answers with a status this build cannot read: attached, with
            // what it does not say left unknown rather than guessed.
            attached.policy = nil
            attached.batchSize = nil
            return attached
        }
        attached.isOffline = report.offline
        attached.batchSize = report.batchSize
        // An unreadable policy shows as unknown rather than as a guess.
        attached.policy = try? FlushPolicy(parsing: report.policy)
        if let events = report.queue.maxEvents, let bytes = report.queue.maxBytes, events > 0, bytes > 0 {
            attached.queueBounds = QueueBounds(maxEvents: events, maxBytes: bytes)
        }
        attached.engineSaysQueueFull = report.queue.full
        attached.endpoint = Self.endpoints(report)
        Self.layFigures(of: report, over: &attached)
        // The store knows the destinations and their oldest events; the engine knows each one's state.
        for destination in report.destinations {
            guard let index = attached.destinations.firstIndex(where: { $0.name == destination.name }) else { continue }
            attached.destinations[index].depth = max(0, destination.pending)
            attached.destinations[index].state = destination.destinationState
            attached.destinations[index].consecutiveFailures = max(0, destination.consecutiveFailures)
            attached.destinations[index].lastError = destination.lastError.map(PrintableText.line)
            attached.destinations[index].lastStatus = destination.lastStatus.flatMap { (100...599).contains($0) ? $0 : nil }
            attached.destinations[index].stalled = destination.stalled
            // The engine's rate, or none: not the store's, derived apart (blank when unknown).
            attached.destinations[index].deliveryRate = destination.deliveryRate.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            // Every event the engine accepts is for every destination: its inflow.
            attached.destinations[index].inflowRate = report.rates.flatMap { $0.accepted.isFinite && $0.accepted >= 0 ? $0.accepted : nil }
            attached.destinations[index].failingSince = destination.failingSince.flatMap { Timestamp(iso8601: $0) }
            attached.destinations[index].failureRate = destination.failureRate.flatMap { $0.isFinite ? min(1, max(0, $0)) : nil }
        }
        return attached
    }

    /// The engine's figures in place of the store's: depth, bytes, dead letters, the rates
    /// and the totals, from the status report `ctl status` prints, so that the attached screen and
    /// `ctl status` give one number for each (the store's batch history cannot say how many
    /// batches this engine sent, and its counters run over the store's life). A value out
    /// of range (negative) reads as zero.
    static func layFigures(of report: EngineStatusReport, over snapshot: inout EngineSnapshot) {
        snapshot.depth = max(0, report.depth)
        snapshot.buffered = max(0, report.queue.events.subtractingReportingOverflow(report.depth).partialValue)
        snapshot.queuedBytes = max(0, report.queue.bytes)
        snapshot.deadLetters = max(0, report.deadLetters)
        snapshot.totals.deadLettersRetried = max(0, report.deadLettersRetried)
        snapshot.totals.deadLettersPurged = max(0, report.deadLettersPurged)
        snapshot.fullQueueRefusesNew = report.queue.whenFull == EngineStatusReport.Queue.refusesNew
        if let rates = report.rates {
            snapshot.rateIn = rates.accepted.isFinite ? max(0, rates.accepted) : 0
            snapshot.rateOut = rates.delivered.isFinite ? max(0, rates.delivered) : 0
        }
        // The engine's own counts per name (none: an engine that does not give them).
        snapshot.eventNames = (report.eventNames ?? []).prefix(EngineSnapshot.eventNameLimit).map { name in
            EngineSnapshot.EventName(
                name: PrintableText.line(name.name), count: max(0, name.count), rate: name.rate.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil })
        }
        snapshot.otherEventNames = max(0, report.otherEventNames ?? 0)
        // The engine's reading of its disk and its estimates, not the monitor's own.
        snapshot.disk = report.disk.map { StoreDisk(storeBytes: $0.storeBytes, freeBytes: $0.freeBytes, totalBytes: $0.totalBytes) }
        snapshot.diskFullInSeconds = report.disk?.fullInSeconds.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        snapshot.boundInSeconds = report.boundInSeconds.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        // The engine's last ten minutes, bounded and made sane (it is read from a socket).
        snapshot.trend = Trend(points: (report.trend ?? []).suffix(Trend.capacity).map(\.point)).points
        guard let totals = report.totals else { return }
        snapshot.totals.refused = max(0, totals.refused ?? 0)
        snapshot.batchesSeenByMonitor = false
        snapshot.totals.accepted = max(0, totals.accepted)
        snapshot.totals.delivered = max(0, totals.delivered)
        snapshot.totals.requests = max(0, totals.requests)
        snapshot.totals.bytesSent = max(0, totals.bytesSent)
        snapshot.totals.batchesSent = max(0, totals.batchesSent)
        snapshot.totals.retried = max(0, totals.retried)
        snapshot.totals.split = max(0, totals.split)
        snapshot.totals.deadLettered = max(0, totals.deadLettered)
        snapshot.totals.dropped = max(0, totals.dropped)
    }

    /// Where the engine sends: its one destination's endpoint, or `N destinations: a, b`.
    static func endpoints(_ report: EngineStatusReport) -> String {
        if report.destinations.count == 1, let endpoint = report.destinations[0].endpoint { return PrintableText.line(endpoint) }
        let names = report.destinations.map { PrintableText.line($0.name) }
        return names.isEmpty ? "the engine serving the store" : "\(names.count) destinations: \(names.joined(separator: ", "))"
    }

    /// Streams the engine's status while one serves the store; between engines, looks for
    /// one every interval.
    /// How often a monitor looks for an engine where none listens.
    static let noEngineInterval = Duration.seconds(1)

    private func poll() async {
        // The last failure other than "no engine", logged once while it lasts.
        var lastProblem: String?
        let range = ControlProtocol.watchIntervals
        let streamed = Int(clamping: min(max(interval.inMilliseconds, Int64(range.lowerBound)), Int64(range.upperBound)))
        while !Task.isCancelled {
            do {
                try await client.watch(intervalMilliseconds: streamed) { response in
                    guard case .success(let status) = response.outcome else { return false }
                    self.latest.withLock { $0 = (status, ContinuousClock.now) }
                    self.restamp(with: status)
                    return !Task.isCancelled
                }
                lastProblem = nil
            } catch where error.kind == .noEngine {
                // No engine, or it went away: read-only until one answers, which the screen
                // says. Nothing listens, so look again in a second rather than at the
                // stream's interval: an idle fleet of ten stores wakes ten times less.
                lastProblem = nil
                latest.withLock { $0 = nil }
                restamp(with: nil)
                do { try await Task.sleep(for: max(interval, Self.noEngineInterval)) } catch { return }
                continue
            } catch {
                // Something listens but its stream broke or made no sense: read-only too,
                // and the log says why (a newer engine, a permission, a crash mid-answer).
                if lastProblem != error.message {
                    logger.notice("the engine's status stream failed; the monitor is read-only", metadata: ["error": "\(error.message)"])
                }
                lastProblem = error.message
            }
            latest.withLock { $0 = nil }
            do {
                try await Task.sleep(for: interval)
            } catch {
                return  // cancelled: the dashboard closed
            }
        }
    }

    private func refresh() async {
        let status = await Self.probe(client).status
        latest.withLock { $0 = status.map { ($0, ContinuousClock.now) } }
    }
}

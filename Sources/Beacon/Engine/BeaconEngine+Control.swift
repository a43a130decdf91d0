import BeaconWire
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BeaconEngine {
    /// Serves this engine's control channel beside its store (`STORE.control`, mode 0600,
    /// commands from this uid or root only) until ``ControlServer/close()``.
    ///
    /// ```swift
    /// let control = try await engine.serveControl()
    /// defer { Task { await control.close() } }
    /// ```
    ///
    /// - Parameter path: the socket's path; default ``ControlProtocol/socketPath(forStore:)``
    ///   of the queue's location.
    /// - Parameter lock: the store's lock (``StoreLock``), when this process holds it: a
    ///   socket file left beside the store is then replaced without a doubt.
    /// - Parameter watch: the watch over that lock (its lock stands for `lock` when that
    ///   is `nil`): checked before every command, so a holder file or a store file
    ///   removed or replaced is said in the log when an operator acts, not only on its timer.
    public func serveControl(
        at path: String? = nil, lock: StoreLock? = nil, watch: StoreLockWatch? = nil, logger: Logger = Logger(label: "beacon.control")
    ) async throws(ControlServerError) -> ControlServer {
        let queue = self.queue
        // Every command that would change the engine is kept in its store, applied or
        // refused, with who asked: `beacon ctl log`, the console's log view.
        return try await ControlServer.start(
            path: path ?? ControlProtocol.socketPath(forStore: queue.location), lock: lock ?? watch?.lock, logger: logger,
            audit: { action in await Self.keep(action, in: queue, logger: logger) }
        ) { command in
            watch?.checkNow()
            return await self.perform(command)
        }
    }

    /// Carries out `command` for a console in this process (the demo's keys) by the path
    /// `ctl` takes: the same checks and refusals, and a command that would change the
    /// engine is kept in the operator log with this process as the peer.
    public func operate(_ command: ControlCommand) async -> Result<JSONValue, ControlRefusal> {
        let result = await perform(command)
        guard !command.isRead else { return result }
        let reason: String? = if case .failure(let refusal) = result { refusal.reason } else { nil }
        await Self.keep(
            OperatorAction(
                at: .now(), command: command.name, argument: command.argument?.jsonString, applied: reason == nil, reason: reason,
                peerUID: geteuid(), peerPID: getpid()),
            in: queue, logger: logger)
        return result
    }

    /// Writes `action` to the operator log; a store that cannot take it is logged, not fatal.
    private static func keep(_ action: OperatorAction, in queue: any EventQueue, logger: Logger) async {
        do {
            try await queue.recordOperatorAction(action)
        } catch {
            logger.warning("an operator's command was not kept in the store", metadata: [
                "command": "\(action.command)", "error": "\(error)",
            ])
        }
    }

    /// Carries out one control command.
    func perform(_ command: ControlCommand) async -> Result<JSONValue, ControlRefusal> {
        switch command {
        case .status, .watch:
            // The server repeats `watch`'s status itself, on the watching connection.
            return .success(await controlStatus())
        case .flush:
            guard !settings.current.isOffline else {
                return .failure(ControlRefusal(reason: "the engine is offline; send 'online' first"))
            }
            await flush()
            // A flush does not cut a backoff short: say which destinations wait, and until when.
            var waiting: [JSONValue] = []
            for (index, destination) in destinations.enumerated() {
                if case .backingOff(let until) = await batchers[index].state {
                    waiting.append(["name": .string(destination.name), "nextRetryAt": .string(until.iso8601)])
                }
            }
            return .success(["flushing": true, "backingOff": .array(waiting)])
        case .offline:
            setOffline(true)
            return .success(["offline": true])
        case .online:
            setOffline(false)
            return .success(["offline": false])
        case .policy(let text):
            do {
                let policy = try FlushPolicy(parsing: text)
                setPolicy(policy)
                return .success(["policy": .string(policy.description)])
            } catch {
                return .failure(ControlRefusal(reason: error.description))
            }
        case .batchSize(let size):
            let sizes = ControlProtocol.batchSizes
            guard sizes.contains(size) else {
                return .failure(ControlRefusal(reason: "batch size must be \(sizes.lowerBound)...\(sizes.upperBound), not \(size)"))
            }
            setBatchSize(size)
            return .success(["batchSize": .int(size)])
        case .pause(let name):
            do {
                let (names, unrecorded) = try await pauseRecording(destination: name)
                var answer: [String: JSONValue] = ["paused": .array(names.map { .string($0) }), "recorded": .bool(unrecorded.isEmpty)]
                if let (first, error) = unrecorded.min(by: { $0.key < $1.key }) {
                    answer["warning"] = .string(
                        "the store could not record the pause of \(first) (\(error)): it holds until this engine stops, not across a restart")
                }
                return .success(.object(answer))
            } catch {
                return .failure(ControlRefusal(reason: error.description))
            }
        case .resume(let name):
            do {
                let names = try await resume(destination: name)
                return .success(["resumed": .array(names.map { .string($0) }), "offline": .bool(settings.current.isOffline)])
            } catch {
                return .failure(ControlRefusal(reason: error.description))
            }
        case .retryNow(let name):
            do {
                let names = try await retryNow(destination: name)
                return .success([
                    "retried": .array(names.map { .string($0) }), "offline": .bool(settings.current.isOffline),
                ])
            } catch {
                return .failure(ControlRefusal(reason: error.description))
            }
        case .deadList, .deadShow, .deadRetry, .deadPurge, .deadExport:
            let performed = await DeadLetterCommands.perform(command, on: queue)
            if case .deadRetry = command, case .success(let change) = performed { await flush(after: change) }
            return performed.map(\.json)
        }
    }

    /// Retried letters go out now (a paused destination sends them once resumed).
    private func flush(after change: DeadLetterCommands.Answer) async {
        guard case .change(let change) = change else { return }
        for (index, destination) in destinations.enumerated() where change.destinations.contains(destination.name) {
            await batchers[index].flush()
        }
    }

    /// The `status` result: ``EngineStatusReport`` as JSON.
    func controlStatus() async -> JSONValue {
        await statusReport().json
    }

    /// The engine's status now: settings, queue, dead letters, and each destination's
    /// state with what it carries (next retry, pause, last error), pending events, the
    /// oldest one's age (fresh from the store), last success, stall and delivery rate.
    public func statusReport() async -> EngineStatusReport {
        let current = settings.current
        let depth = queue.depth
        let snapshot = await observer.snapshot
        let known = Dictionary(snapshot.destinations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // Fresh from the store (one indexed read per destination); the snapshot's if it fails.
        let oldest: [String: Timestamp]
        do {
            oldest = try await queue.oldestPending()
            statusReadProblem.clear()
        } catch {
            oldest = known.compactMapValues(\.oldestPendingAt)
            let problem = "\(error)"
            if statusReadProblem.isNews(problem) {
                logger.warning(
                    "cannot read the oldest pending events; status gives the ages last observed", metadata: ["error": "\(problem)"])
            }
        }
        let now = observer.now()
        let bounds = queue.bounds
        let totals = snapshot.totals
        var report = EngineStatusReport(
            policy: current.policy.description, batchSize: current.batchSize, offline: current.isOffline, depth: depth.events,
            deadLetters: depth.deadLetters, deadLettersRetried: depth.totals.deadLettersRetried,
            deadLettersPurged: depth.totals.deadLettersPurged, store: queue.location,
            queue: EngineStatusReport.Queue(
                events: depth.events.addingReportingOverflow(depth.buffered).partialValue, bytes: depth.bytes,
                maxEvents: bounds?.maxEvents, maxBytes: bounds?.maxBytes, full: queue.isFull,
                whenFull: snapshot.fullQueueRefusesNew ? EngineStatusReport.Queue.refusesNew : EngineStatusReport.Queue.dropsOldest),
            destinations: destinations.map { destination in
                // Not reported yet: its batcher has not started, so its state is not known.
                var status = known[destination.name]
                    ?? DestinationStatus(name: destination.name, endpoint: destination.sender.endpointDescription, depth: 0, state: .starting)
                status.depth = depth.pending(for: destination.name)
                status.oldestPendingAt = oldest[destination.name]
                return EngineStatusReport.Destination(
                    name: destination.name, endpoint: destination.sender.endpointDescription, state: status.state,
                    pending: status.depth, oldestPendingAge: status.oldestPendingAge(at: now).map { Double($0) / 1000 },
                    lastSuccessAt: status.lastSuccessAt, stalled: status.isStalled(at: now, threshold: observer.stallThreshold),
                    consecutiveFailures: status.consecutiveFailures, lastError: status.lastError, deliveryRate: status.deliveryRate,
                    stalledSince: status.stalledSince(at: now, threshold: observer.stallThreshold), lastStatus: status.lastStatus,
                    sinceStart: EngineStatusReport.Destination.Counts(
                        depth.destinations[destination.name] ?? DestinationDepth(pending: depth.events),
                        from: startDepth.destinations[destination.name] ?? DestinationDepth(pending: startDepth.events)),
                    drain: status.drain, failingSince: status.failingSince, failureRate: status.failureRate)
            })
        report.totals = EngineStatusReport.Totals(
            accepted: totals.accepted, delivered: totals.delivered, requests: totals.requests, bytesSent: totals.bytesSent,
            batchesSent: totals.batchesSent, retried: totals.retried, split: totals.split, deadLettered: totals.deadLettered,
            dropped: totals.dropped)
        report.totals?.refused = totals.refused
        report.rates = EngineStatusReport.Rates(accepted: snapshot.rateIn, delivered: snapshot.rateOut)
        report.eventNames = snapshot.eventNames.map { EngineStatusReport.EventName(name: $0.name, count: $0.count, rate: $0.rate) }
        report.otherEventNames = snapshot.otherEventNames
        report.disk = snapshot.disk.map { disk in
            EngineStatusReport.Disk(
                storeBytes: disk.storeBytes, freeBytes: disk.freeBytes, totalBytes: disk.totalBytes,
                fullInSeconds: snapshot.diskFullInSeconds, low: snapshot.isDiskLow)
        }
        report.boundInSeconds = snapshot.boundInSeconds.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        report.trend = snapshot.trend.map(EngineStatusReport.TrendPoint.init)
        return report
    }
}

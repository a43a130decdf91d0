import ArgumentParser
import Beacon
import BeaconWire
import Logging
import Synchronization
import UnixSignals

/// `beacon flush`: send a store's queue until it is empty.
struct FlushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flush",
        abstract: "Send a store's queue until it is empty.",
        discussion: """
            Exits 0 once the queue is empty. A store that another process serves (an \
            agent, the demo, another flush) is refused with exit 1 and the holder's PID; \
            ask a running engine with 'beacon ctl --db FILE flush' instead. Gives up, exiting 1 with the reason, when the \
            destination refuses the credentials, after --max-failures consecutive failed \
            sends, or after --timeout seconds. Events not sent stay queued. On SIGINT or \
            SIGTERM it stops once the batch in flight has settled, says how many events stay \
            queued, and exits 130 (SIGINT) or 143 (SIGTERM).
            """)

    @Option(help: "The store (an SQLite file).")
    var db: String

    @Option(help: "Where to send: http://HOST:PORT, file:///PATH (NDJSON) or log:.")
    var endpoint: String

    @Option(help: "The write key (sent as HTTP Basic auth).")
    var writeKey: String?

    @Option(parsing: .unconditional, help: "Events per batch at most (1...10000).")
    var batchSize: Int = 500

    @Option(parsing: .unconditional, help: "Consecutive failed sends before giving up (1...1000).")
    var maxFailures: Int = 5

    @Option(parsing: .unconditional, help: "Seconds before giving up (more than 0, at most 10 years).")
    var timeout: Double = 60

    /// The range `--batch-size` accepts (the dashboard's too).
    static let batchSizes = 1...10_000
    /// The range `--max-failures` accepts.
    static let failureCounts = 1...1_000

    func validate() throws {
        guard Self.batchSizes.contains(batchSize) else { throw ValidationError("--batch-size must be 1...10000, not \(batchSize)") }
        guard Self.failureCounts.contains(maxFailures) else {
            throw ValidationError("--max-failures must be 1...1000, not \(maxFailures)")
        }
        _ = try timeLimit
    }

    /// `--timeout` as a duration, checked.
    var timeLimit: Duration {
        get throws(ValidationError) {
            guard let limit = Duration(checkedSeconds: timeout), limit > .zero else {
                throw ValidationError(
                    "--timeout must be a number of seconds more than 0 and at most \(Duration.maximumFromOutside.components.seconds), not \(timeout)")
            }
            return limit
        }
    }

    func run() async throws {
        let limit = try timeLimit
        let counter = FlushSender(try Senders.make(endpoint: endpoint, writeKey: writeKey))
        if let problem = StorePath.problem(db) { throw CLIError.badInput("--db: cannot open the store \(db): \(problem)") }
        // One process sends from a store: two flushes would send every event twice, and a
        // flush beside an engine would race its batches. The engine flushes on request.
        let lock = try StoreLock.take(forStore: db, role: "beacon flush")
        defer { withExtendedLifetime(lock) {} }
        let queue: SQLiteEventQueue
        do {
            var queueLogger = Logger(label: "beacon.queue")
            queueLogger.logLevel = .warning  // a flush that works prints its one line, nothing else
            queue = try SQLiteEventQueue(path: db, logger: queueLogger)
        } catch {
            throw error.cli(path: db)
        }
        let initial = queue.depth.events
        counter.watchSettles(of: queue)
        var retry = RetryPolicy()
        retry.initialDelay = .milliseconds(200)
        retry.maxDelay = .seconds(5)
        var logger = Logger(label: "beacon.flush")
        logger.logLevel = .error
        let engine = BeaconEngine(
            queue: queue, destination: Destination(sender: counter),
            settings: EngineSettings(policy: .manual, batchSize: batchSize), retryPolicy: retry, logger: logger)
        // Trapped before the engine starts: from here a signal stops the flush, not the process.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let lastProblem = LastProblem()
        let outcome = try await withThrowingTaskGroup(of: FlushOutcome?.self) { group -> FlushOutcome in
            group.addTask {
                try await engine.run()
                return nil
            }
            group.addTask { await Self.watch(engine, maxFailures: maxFailures, lastProblem: lastProblem) }
            group.addTask {
                try await Task.sleep(for: limit)
                let seconds = timeout.rounded() == timeout ? "\(Int64(timeout))" : "\(timeout)"
                return .gaveUp("timed out after \(seconds) s" + (lastProblem.text.map { ", the last error: \($0)" } ?? ""))
            }
            group.addTask {
                for await signal in signals {
                    return .interrupted(signal == .sigint ? "SIGINT" : "SIGTERM", code: signal == .sigint ? 130 : 143)
                }
                return nil
            }
            await engine.flush()
            var result: FlushOutcome = .gaveUp("stopped")
            while let next = try await group.next() {
                if let next {
                    result = next
                    break
                }
            }
            if case .interrupted = result {
                // No new batch goes out; the one in flight is answered and settled (its
                // events deleted or kept) before the engine stops, so none is sent twice.
                counter.stop()
                let deadline = ContinuousClock.now + Self.settleLimit
                while !counter.isSettled && ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(20))  // cancelled: the loop's deadline still ends it
                }
            }
            group.cancelAll()
            return result
        }
        switch outcome {
        case .done:
            let batches = counter.count
            var line = "flushed \(initial) event\(initial == 1 ? "" : "s") to \(counter.endpointDescription) "
                + "in \(batches) batch\(batches == 1 ? "" : "es")"
            // An event the destination refused for good left the queue too, but was not
            // delivered: say so, rather than count it as flushed.
            let deadLettered = min(initial, counter.deadLettered)
            if deadLettered > 0 {
                line += ": \(initial - deadLettered) delivered, \(deadLettered) dead-lettered (beacon dead list --db \(db))"
            }
            Output.line(line + "; queue empty")
        case .gaveUp(let reason):
            // A collector's message may end its own sentence; this line goes on after it.
            let cause = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            throw CLIError.runtime("flush gave up: \(cause); \(Self.staying(queue.depth.events)) queued in \(db)")
        case .interrupted(let name, let code):
            throw CLIError(
                message: "flush stopped by \(name) after \(counter.count) batch\(counter.count == 1 ? "" : "es"); "
                    + "\(Self.staying(queue.depth.events)) queued in \(db)",
                exitCode: code)
        }
    }

    /// How long an interrupted flush waits for the batch in flight to settle.
    static let settleLimit = Duration.seconds(30)

    static func staying(_ events: Int) -> String {
        "\(events) event\(events == 1 ? " stays" : "s stay")"
    }

    enum FlushOutcome: Sendable {
        case done
        case gaveUp(String)
        case interrupted(String, code: Int32)
    }

    static func watch(_ engine: BeaconEngine<ContinuousClock>, maxFailures: Int, lastProblem: LastProblem) async -> FlushOutcome? {
        for await snapshot in await engine.observer.snapshots() {
            if let problem = snapshot.storageProblem {
                // A store that cannot be written cannot settle what was sent: each batch
                // would go out again and again. The flush stops; its events stay queued.
                return .gaveUp("the store cannot be written (storage \(problem)); what was sent since the last settle will be sent again")
            } else if let error = snapshot.lastError {
                lastProblem.text = error
            }
            if snapshot.depth == 0 && snapshot.buffered == 0 { return .done }
            for destination in snapshot.destinations {
                if case .paused(let reason) = destination.state { return .gaveUp(reason) }
                if destination.consecutiveFailures >= maxFailures {
                    let last = destination.lastError ?? snapshot.lastError ?? "unknown error"
                    return .gaveUp("\(destination.consecutiveFailures) failed sends in a row, the last: \(last)")
                }
            }
        }
        return nil
    }
}

/// The latest error the engine reported, for a time-out to name its cause.
final class LastProblem: Sendable {
    private let value = Mutex<String?>(nil)
    var text: String? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// The flush's sender: counts the batches its destination accepted, and once stopped,
/// sends nothing more while the batch in flight finishes.
///
/// The count is taken when the send returns, before the batcher settles the batch, so once
/// the queue reads empty every batch that emptied it is counted (the observer's own count
/// may lag behind its depth).
final class FlushSender: EventSender {
    private struct State {
        var delivered = 0
        var inFlight = 0
        var stopping = false
        /// Batches answered (or refused after ``stop()``) and not yet settled in the store.
        var unsettled: Set<Int64> = []
        /// Events this flush's settles moved to the dead letters.
        var deadLettered = 0
    }

    private let sender: any EventSender
    private let state = Mutex(State())
    /// The queue's facts, read for its settles (``watchSettles(of:)``).
    private let settles = Mutex<QueueFacts?>(nil)

    init(_ sender: any EventSender) { self.sender = sender }

    var endpointDescription: String { sender.endpointDescription }
    /// Batches the destination accepted.
    var count: Int { state.withLock { $0.delivered } }
    /// Events refused for good and dead-lettered by this flush's settles.
    var deadLettered: Int {
        readSettles()
        return state.withLock { $0.deadLettered }
    }
    /// Nothing in flight, and every batch answered has been settled in the store.
    var isSettled: Bool {
        readSettles()
        return state.withLock { $0.inFlight == 0 && $0.unsettled.isEmpty }
    }

    /// Follows the settles of `queue`, for ``isSettled`` and ``deadLettered``, which read
    /// the queue's facts published so far: once the observer reads the queue empty,
    /// every settle that emptied it is published, so every dead letter is counted.
    func watchSettles(of queue: some EventQueue) {
        settles.withLock { $0 = queue.facts() }
    }

    private func readSettles() {
        let facts = settles.withLock { $0?.takeAvailable() ?? [] }
        for case .settled(let settlement, _) in facts {
            state.withLock { state in
                state.unsettled.remove(settlement.record.id)
                state.deadLettered += settlement.deadLetters.count
            }
        }
    }

    /// Sends nothing more: later batches fail at once, as retryable, and stay queued.
    func stop() { state.withLock { $0.stopping = true } }

    func send(_ batch: OutgoingBatch) async -> SendResult {
        let stopping = state.withLock { state in
            if !state.stopping { state.inFlight += 1 }
            return state.stopping
        }
        if stopping {
            _ = state.withLock { $0.unsettled.insert(batch.id) }
            return SendResult(.retryable(reason: "the flush is stopping", retryAfter: nil))
        }
        let result = await sender.send(batch)
        state.withLock { state in
            state.inFlight -= 1
            state.unsettled.insert(batch.id)
            if case .delivered = result.outcome { state.delivered += 1 }
        }
        return result
    }

    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { sender.prepare(batch) }
}

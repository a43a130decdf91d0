import ArgumentParser
import Beacon
import BeaconWire
import Logging

/// `beacon flush`: send a store's queue until it is empty.
struct FlushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flush",
        abstract: "Send a store's queue until it is empty.",
        discussion: """
            Exits 0 once the queue is empty. Gives up, exiting 1 with the reason, when the \
            destination refuses the credentials, after --max-failures consecutive failed \
            sends, or after --timeout seconds. Events not sent stay queued.
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
                    "--timeout must be a number of seconds more than 0 and at most \(Int64(Duration.maximumFromOutside.inSeconds)), not \(timeout)")
            }
            return limit
        }
    }

    func run() async throws {
        let limit = try timeLimit
        let sender = try Senders.make(endpoint: endpoint, writeKey: writeKey)
        let queue: SQLiteEventQueue
        do {
            queue = try SQLiteEventQueue(path: db)
        } catch {
            throw error.cli(path: db)
        }
        let initial = queue.depth.events
        var retry = RetryPolicy()
        retry.initialDelay = .milliseconds(200)
        retry.maxDelay = .seconds(5)
        var logger = Logger(label: "beacon.flush")
        logger.logLevel = .error
        let engine = BeaconEngine(
            queue: queue, destination: Destination(sender: sender),
            settings: EngineSettings(policy: .manual, batchSize: batchSize), retryPolicy: retry, logger: logger)
        let outcome = try await withThrowingTaskGroup(of: FlushOutcome?.self) { group -> FlushOutcome in
            group.addTask {
                try await engine.run()
                return nil
            }
            group.addTask { await Self.watch(engine, maxFailures: maxFailures) }
            group.addTask {
                try await Task.sleep(for: limit)
                return .gaveUp("timed out after \(timeout) s with \(queue.depth.events) events left")
            }
            await engine.flush()
            var result: FlushOutcome = .gaveUp("stopped")
            while let next = try await group.next() {
                if let next {
                    result = next
                    break
                }
            }
            group.cancelAll()
            return result
        }
        switch outcome {
        case .done(let snapshot):
            let batches = snapshot.totals.batchesSent
            Output.line(
                "flushed \(initial) event\(initial == 1 ? "" : "s") to \(sender.endpointDescription) "
                    + "in \(batches) batch\(batches == 1 ? "" : "es"); queue empty")
        case .gaveUp(let reason):
            let left = queue.depth.events
            // A collector's message may end its own sentence; this line goes on after it.
            let cause = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            throw CLIError.runtime("flush gave up: \(cause); \(left) event\(left == 1 ? " stays" : "s stay") queued in \(db)")
        }
    }

    enum FlushOutcome: Sendable {
        case done(EngineSnapshot)
        case gaveUp(String)
    }

    static func watch(_ engine: BeaconEngine<ContinuousClock>, maxFailures: Int) async -> FlushOutcome? {
        for await snapshot in await engine.observer.snapshots() {
            if snapshot.depth == 0 && snapshot.buffered == 0 { return .done(snapshot) }
            for destination in snapshot.destinations {
                if case .paused(let reason) = destination.state { return .gaveUp(reason) }
                if destination.consecutiveFailures >= maxFailures {
                    return .gaveUp("\(destination.consecutiveFailures) failed sends in a row, the last: \(destination.lastError ?? "unknown error")")
                }
            }
        }
        return nil
    }
}

@_spi(Benchmarks) import Beacon
import BeaconWire
import Foundation
import Logging
import Synchronization

/// `beacon bench drain` and `beacon bench latency`: the engine and its HTTP sender in
/// this process, the collector as users run it (``CollectorProcess``: a process of its
/// own storing to SQLite on disk), and the raw-POST limit of the same collector.
struct DeliveryBenchmark {
    var directory: String
    /// The sender's gzip level.
    var gzipLevel = Gzip.defaultLevel
    /// Batches in flight at once per destination (`maxConcurrentRequests`).
    var concurrency = 1
    /// The executable whose `collector` command is started (this one by default).
    var collectorExecutable = BenchChild.currentExecutable
    var logger: Logger = {
        var logger = Logger(label: "beacon.bench")
        logger.logLevel = .critical
        return logger
    }()

    /// What one engine run measured.
    struct EngineRun {
        /// The timed span (drain: flush to last delivered; latency: first track to last delivered).
        var elapsed: Duration
        /// Latency only: the time the `track` calls took.
        var tracked: Duration = .zero
        /// CPU of this process (engine and sender) and of the collector during the span.
        var engineCPUSeconds: Double
        var collectorCPUSeconds: Double
        var stages: EngineStages
        /// The request bodies in the order they were sent, for the raw replay.
        var bodies: [[UInt8]]
        var wireBytes: Int
        /// The span split in three: before the first send started, from there to the end
        /// of the last send, after it (the last settle and the observer seeing it); and the
        /// sum of the sends' own durations.
        var beforeFirstSend: Duration = .zero
        var sending: Duration = .zero
        var afterLastSend: Duration = .zero
        var sendTotal: Duration = .zero
        /// SQL statements the engine's queue started during the span (its writer and
        /// readers; the checkpointer's connection is not traced).
        var sqlStatements = 0
        /// With the pending view open: the reads of the queue's head and tail it made
        /// (one a second, as the console's), and the longest.
        var viewReads = 0
        var longestViewRead: Duration = .zero
    }

    /// The pending view's reads during a drain: how many, and the longest.
    final class ViewReads: Sendable {
        let value = Mutex<(count: Int, longest: Duration)>((0, .zero))
    }

    /// Counts the statements a queue's connections start (``SQLiteEventQueue/Configuration/statementObserver``).
    final class StatementCounter: Sendable {
        private let count = Atomic(0)
        var value: Int { count.load(ordering: .relaxed) }
        func reset() { count.store(0, ordering: .relaxed) }
        /// A queue configuration that counts here.
        var configuration: SQLiteEventQueue.Configuration {
            var configuration = SQLiteEventQueue.Configuration()
            configuration.statementObserver = { [self] _ in self.count.add(1, ordering: .relaxed) }
            return configuration
        }
    }

    /// What one raw replay measured.
    struct RawRun {
        var elapsed: Duration
        var collectorCPUSeconds: Double
        var roundTrips: [Duration]
    }

    /// Drains a backlog of `events` to a fresh collector at `batchSize`.
    /// - Parameter pendingView: Whether a reader on the store reads the queue's head and
    ///   tail every second during the drain, as the console's pending view does.
    func drain(events: Int, batchSize: Int, run: Int, gzip: Bool = true, pendingView: Bool = false) async throws -> EngineRun {
        let path = "\(directory)/drain-\(run)-\(gzip).sqlite"
        defer { EnqueueBenchmark.remove(path) }
        let statements = StatementCounter()
        let queue = TimedQueue(try SQLiteEventQueue(path: path, configuration: statements.configuration, logger: logger))
        let filler = Tracker(queue: queue)
        for _ in 0..<events { try filler.track("Benchmark Event", properties: EnqueueBenchmark.properties) }
        await queue.waitForPendingWrites()
        // A backlog at rest, as one built up while the collector was away: its log copied
        // into the database and on disk, so the filling's writes are not timed as the drain's.
        try StoreRest.checkpoint(path)
        StoreRest.flushFilesystem()
        let collector = try CollectorProcess(executable: collectorExecutable, databasePath: "\(directory)/collector-drain-\(run).sqlite")
        defer { collector.stop() }
        let meter = try meter(port: collector.port, gzip: gzip)
        let engine = BeaconEngine(
            queue: queue, destination: try destination(meter),
            settings: settings(policy: .manual, batchSize: batchSize, maxBatchBytes: 1_000_000), logger: logger)
        let view = pendingView ? try StoreReader(path: path) : nil
        let viewReads = ViewReads()
        let measured = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            if let view {
                group.addTask {
                    while !Task.isCancelled {
                        let started = ContinuousClock.now
                        _ = try await view.pendingEvents(PendingEventQuery(limit: 10))
                        let took = started.duration(to: .now)
                        viewReads.value.withLock { $0 = ($0.count + 1, max($0.longest, took)) }
                        try await Task.sleep(for: .seconds(1))
                    }
                }
            }
            let cpuStart = (ProcessCPU.seconds, try collector.cpuSeconds)
            statements.reset()
            let start = ContinuousClock.now
            await engine.flush()
            _ = await engine.observer.firstSnapshot { $0.totals.delivered >= events }
            let end = ContinuousClock.now
            let cpu = (ProcessCPU.seconds - cpuStart.0, try collector.cpuSeconds - cpuStart.1)
            let counted = statements.value
            group.cancelAll()
            return (start, end, cpu, counted)
        }
        try check(collector, stored: events, what: "drain")
        var result = EngineRun(
            elapsed: measured.0.duration(to: measured.1), engineCPUSeconds: measured.2.0, collectorCPUSeconds: measured.2.1,
            stages: EngineStages(queue: queue, meter: meter), bodies: meter.bodies, wireBytes: meter.bytes)
        result.sqlStatements = measured.3
        (result.viewReads, result.longestViewRead) = viewReads.value.withLock { $0 }
        result.split(start: measured.0, end: measured.1, meter: meter)
        return result
    }

    /// From the first `track` to the last of `events` stored, at `batchSize`, with the
    /// policy "count batchSize or 20 ms" (the tail of fewer than a batch goes on the clock).
    func firstToLast(events: Int, batchSize: Int, run: Int) async throws -> EngineRun {
        let path = "\(directory)/latency-\(run).sqlite"
        defer { EnqueueBenchmark.remove(path) }
        let statements = StatementCounter()
        let queue = TimedQueue(try SQLiteEventQueue(path: path, configuration: statements.configuration, logger: logger))
        let collector = try CollectorProcess(executable: collectorExecutable, databasePath: "\(directory)/collector-latency-\(run).sqlite")
        defer { collector.stop() }
        let meter = try meter(port: collector.port, gzip: true)
        let engine = BeaconEngine(
            queue: queue, destination: try destination(meter),
            settings: settings(policy: .any([.count(batchSize), .interval(.milliseconds(20))]), batchSize: batchSize), logger: logger)
        StoreRest.flushFilesystem()
        let measured = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            let cpuStart = (ProcessCPU.seconds, try collector.cpuSeconds)
            statements.reset()
            let start = ContinuousClock.now
            for _ in 0..<events { try engine.tracker.track("Benchmark Event", properties: EnqueueBenchmark.properties) }
            let tracked = start.duration(to: .now)
            _ = await engine.observer.firstSnapshot { $0.totals.delivered >= events }
            let end = ContinuousClock.now
            let cpu = (ProcessCPU.seconds - cpuStart.0, try collector.cpuSeconds - cpuStart.1)
            let counted = statements.value
            group.cancelAll()
            return (start, end, tracked, cpu, counted)
        }
        try check(collector, stored: events, what: "latency")
        var result = EngineRun(
            elapsed: measured.0.duration(to: measured.1), tracked: measured.2, engineCPUSeconds: measured.3.0,
            collectorCPUSeconds: measured.3.1, stages: EngineStages(queue: queue, meter: meter), bodies: meter.bodies,
            wireBytes: meter.bytes)
        result.sqlStatements = measured.4
        result.split(start: measured.0, end: measured.1, meter: meter)
        return result
    }

    /// Posts `bodies` back to back over one connection to a fresh collector process, the
    /// same kind the engine sent them to; checks that it stored `events`.
    func replay(_ bodies: [[UInt8]], gzip: Bool, events: Int, run: Int, name: String) async throws -> RawRun {
        let collector = try CollectorProcess(
            executable: collectorExecutable, databasePath: "\(directory)/collector-raw-\(name)-\(run).sqlite")
        defer { collector.stop() }
        StoreRest.flushFilesystem()
        let cpuStart = try collector.cpuSeconds
        let result = try await RawPostReplayer(bodies: bodies, gzip: gzip).replay(port: collector.port)
        let cpu = try collector.cpuSeconds - cpuStart
        try check(collector, stored: events, what: "raw \(name) replay")
        return RawRun(elapsed: result.elapsed, collectorCPUSeconds: cpu, roundTrips: result.roundTrips)
    }

    /// The same bodies through the engine's own HTTP client (``HTTPSender`` on
    /// AsyncHTTPClient), one after another with nothing else running: what the client costs
    /// beside the raw replay, apart from the rest of the engine's work. Returns the elapsed
    /// time from the first request to the last response.
    func clientReplay(_ bodies: [[UInt8]], events: Int, run: Int, name: String) async throws -> Duration {
        let collector = try CollectorProcess(
            executable: collectorExecutable, databasePath: "\(directory)/collector-client-\(name)-\(run).sqlite")
        defer { collector.stop() }
        let configuration = try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(collector.port)", writeKey: nil, gzipLevel: gzipLevel)
        let sender = HTTPSender(configuration: configuration, logger: logger)
        // Batches of placeholder events: the sender only needs their message ids for a 400.
        let start = ContinuousClock.now
        for (index, body) in bodies.enumerated() {
            var batch = OutgoingBatch(id: Int64(index), events: [], attempt: 1)
            batch.preparedBody = PreparedBody(bytes: body, gzipped: true)
            let result = await sender.send(batch)
            guard case .delivered = result.outcome else {
                throw CLIError.runtime("bench: the collector did not take client-replayed batch \(index + 1): \(result.outcome)")
            }
        }
        let elapsed = start.duration(to: .now)
        try check(collector, stored: events, what: "client \(name) replay")
        return elapsed
    }

    private func meter(port: Int, gzip: Bool) throws -> WireMeter {
        let configuration = try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: nil, gzip: gzip, gzipLevel: gzipLevel)
        return WireMeter(HTTPSender(configuration: configuration, logger: logger), gzipLevel: gzip ? gzipLevel : nil)
    }

    /// The destination the engine sends to, with ``concurrency`` batches in flight at most.
    private func destination(_ meter: WireMeter) throws -> Destination {
        do {
            return try Destination(sender: meter, maxConcurrentRequests: concurrency)
        } catch {
            throw CLIError.badInput("--concurrency: \(error.message)")
        }
    }

    private func settings(policy: FlushPolicy, batchSize: Int, maxBatchBytes: Int = WireLimits.maxBatchBytes) -> EngineSettings {
        EngineSettings(policy: policy, batchSize: batchSize, maxBatchBytes: maxBatchBytes)
    }

    private func check(_ collector: CollectorProcess, stored events: Int, what: String) throws {
        let stored = try collector.storedCount()
        guard stored == events else { throw CLIError.runtime("\(what) benchmark: the collector stored \(stored) of \(events)") }
    }
}

extension DeliveryBenchmark.EngineRun {
    /// Splits the span from `start` to `end` around the sends `meter` saw.
    mutating func split(start: ContinuousClock.Instant, end: ContinuousClock.Instant, meter: WireMeter) {
        let span = meter.sendSpan
        guard let first = span.first, let last = span.last else { return }
        beforeFirstSend = start.duration(to: first)
        sending = first.duration(to: last)
        afterLastSend = last.duration(to: end)
        sendTotal = .seconds(span.total)
    }
}

@_spi(Benchmarks) import Beacon
import BeaconWire
import Foundation
import GRDB
import Logging

/// `beacon bench enqueue`: durable enqueue throughput against raw SQLite inserts of the
/// same rows, `track` call latency, and memory with a million events queued.
struct EnqueueBenchmark: Sendable {
    /// Events per throughput run. Default 200,000.
    var events = 200_000
    /// Runs of each side (the median is reported). Default 5.
    var runs = 5
    /// Calls measured for latency, in rounds of 1,000 (under the memory buffer's 1 MiB, about
    /// 2,000 of these events, so no call waits on backpressure; each round waits for its
    /// commits). Default 40,000.
    var latencyCalls = 40_000
    /// Where the temporary stores go.
    var directory: String

    init(directory: String) {
        self.directory = directory
    }

    /// The properties of every benchmark event: about 100 bytes of JSON.
    static let properties: [String: JSONValue] = [
        "plan": "enterprise", "page": "/pricing/compare", "referrer": "https://example.com/blog/launch",
        "seats": 25, "trial": false,
    ]

    /// Figures of one benchmark run.
    struct Result: Sendable {
        public var rawRowsPerSecond: [Double] = []
        public var engineEventsPerSecond: [Double] = []
        /// A bare `Tracker` over its queue, and the same with an engine running over it.
        public var bareTrackerEventsPerSecond: [Double] = []
        public var runningEngineEventsPerSecond: [Double] = []
        /// `track` call latency percentiles, one value per run.
        public var trackP50Microseconds: [Double] = []
        public var trackP99Microseconds: [Double] = []
        public var trackP999Microseconds: [Double] = []
        public var propertyBytes = 0
        public var payloadBytes = 0

        public var rawMedian: Double { BenchmarkStatistics.median(rawRowsPerSecond) }
        public var engineMedian: Double { BenchmarkStatistics.median(engineEventsPerSecond) }
        public var ratio: Double { rawMedian > 0 ? engineMedian / rawMedian : 0 }
    }

    /// Runs the throughput and latency parts. `progress` hears a line per step.
    func run(progress: (String) -> Void) async throws -> Result {
        var result = Result()
        result.propertyBytes = JSONValue.object(Self.properties).jsonBytes.count
        let sample = Event(name: "Benchmark Event", properties: Self.properties, context: Tracker.libraryContext)
        result.payloadBytes = sample.jsonBytes.count
        for run in 1...runs {
            let raw = try rawInserts(run: run)
            result.rawRowsPerSecond.append(raw)
            // The two tracker runs take turns going first, so neither always follows the other.
            let engine: Double
            let running: Double
            if run % 2 == 1 {
                engine = try await engineEnqueue(run: run)
                running = try await engineEnqueue(run: run, withEngineRunning: true)
            } else {
                running = try await engineEnqueue(run: run, withEngineRunning: true)
                engine = try await engineEnqueue(run: run)
            }
            result.engineEventsPerSecond.append(engine)
            result.runningEngineEventsPerSecond.append(running)
            let latency = try await latency()
            result.trackP50Microseconds.append(latency.0)
            result.trackP99Microseconds.append(latency.1)
            result.trackP999Microseconds.append(latency.2)
            progress(
                "run \(run)/\(runs): raw SQLite \(Int(saturating: raw)) rows/s, bare tracker \(Int(saturating: engine)) events/s, "
                    + "engine running \(Int(saturating: running)) events/s, track p99 \(round2(latency.1)) µs")
        }
        result.bareTrackerEventsPerSecond = result.engineEventsPerSecond
        return result
    }

    /// Raw SQLite: the engine's own rows (same table, same columns, payloads already
    /// encoded), inserted with one cached prepared statement in one transaction.
    func rawInserts(run: Int) throws -> Double {
        let path = "\(directory)/raw-\(run).sqlite"
        defer { Self.remove(path) }
        let pool = try DatabasePool(path: path)
        try StoreSchema.migrator().migrate(pool)
        let payloads = (0..<events).map { _ in
            Event(name: "Benchmark Event", properties: Self.properties, context: Tracker.libraryContext)
        }.map { (id: $0.messageId, payload: $0.jsonBytes) }
        let now = Timestamp.now().millisecondsSince1970
        StoreRest.flushFilesystem()
        let start = ContinuousClock.now
        try pool.writeWithoutTransaction { db in
            try db.inTransaction {
                let insert = try EventRowInserter(db, table: EventRowInserter.firstSegment)
                for (index, row) in payloads.enumerated() {
                    try insert.insert(
                        seq: Int64(index + 1), messageId: row.id, name: "Benchmark Event", payload: row.payload, createdAt: now)
                }
                return .commit
            }
        }
        let rate = Double(events) / start.duration(to: .now).inSeconds
        try StoreRest.checkpoint(path)
        return rate
    }

    /// The engine: `track` (validate, id, timestamp, encode) on this task, group commit on
    /// the writer, timed from the first call until every event is committed. With
    /// `withEngineRunning`, the calls go through a running engine's tracker (its observer
    /// and batcher awake, the policy manual so nothing is sent during the run) instead of
    /// a bare `Tracker`: the difference is what running the engine costs the caller.
    func engineEnqueue(run: Int, withEngineRunning: Bool = false) async throws -> Double {
        let path = "\(directory)/engine-\(run)-\(withEngineRunning).sqlite"
        defer { Self.remove(path) }
        let queue = try SQLiteEventQueue(path: path, logger: Self.quietLogger)
        StoreRest.flushFilesystem()
        let elapsed: Double
        if withEngineRunning {
            let engine = BeaconEngine(
                queue: queue, destination: Destination(sender: AcceptingSender()), settings: EngineSettings(policy: .manual),
                logger: Self.quietLogger)
            elapsed = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.run() }
                // The engine is up (observer and batcher waiting) before the clock starts.
                _ = await engine.observer.firstSnapshot { !$0.destinations.isEmpty }
                let seconds = try await Self.timedEnqueue(events, into: engine.tracker, queue: queue)
                group.cancelAll()
                return seconds
            }
        } else {
            elapsed = try await Self.timedEnqueue(events, into: Tracker(queue: queue), queue: queue)
        }
        guard queue.depth.events == events else {
            throw StorageError(kind: .other, message: "benchmark stored \(queue.depth.events) of \(events) events")
        }
        // The next figure starts with this store at rest: its log copied, its checkpoint
        // thread stopped.
        try StoreRest.checkpoint(path)
        _ = await queue.close()
        return Double(events) / elapsed
    }

    /// Seconds from the first of `count` `track` calls until all are committed.
    private static func timedEnqueue(_ count: Int, into tracker: Tracker, queue: SQLiteEventQueue) async throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<count {
            try tracker.track("Benchmark Event", properties: Self.properties)
        }
        await queue.waitForPendingWrites()
        return start.duration(to: .now).inSeconds
    }

    private static let quietLogger: Logger = {
        var logger = Logger(label: "beacon.bench")
        logger.logLevel = .critical
        return logger
    }()

    /// Fire-and-forget `track` call latency, each call timed on its own.
    func latency() async throws -> (Double, Double, Double, Double) {
        let path = "\(directory)/latency.sqlite"
        defer { Self.remove(path) }
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        StoreRest.flushFilesystem()
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(latencyCalls)
        for round in stride(from: 0, to: latencyCalls, by: 1_000) {
            for _ in round..<min(latencyCalls, round + 1_000) {
                let start = clock.now
                try tracker.track("Benchmark Event", properties: Self.properties)
                samples.append(start.duration(to: clock.now).inSeconds * 1e6)
            }
            await queue.waitForPendingWrites()
        }
        samples.sort()
        return (
            BenchmarkStatistics.percentile(samples, 0.5), BenchmarkStatistics.percentile(samples, 0.99),
            BenchmarkStatistics.percentile(samples, 0.999), samples.last ?? 0
        )
    }

    /// Tracks `count` events into a fresh store and waits for them; the caller reads the
    /// process's memory afterwards (run it in a process of its own).
    static func fillForMemory(path: String, count: Int) async throws -> Int {
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        for _ in 0..<count {
            try tracker.track("Benchmark Event", properties: properties)
        }
        await queue.waitForPendingWrites()
        return queue.depth.events
    }

    /// Runs `beacon bench memory --memory-events count` in a process of its own and returns
    /// its report (events, peak and settled resident bytes).
    static func memoryInChildProcess(count: Int) throws -> [String: JSONValue] {
        let child = try BenchChild(
            executable: BenchChild.currentExecutable, arguments: ["bench", "memory", "--memory-events", String(count)], passStderr: true)
        let output = child.readToEnd(timeout: .seconds(600))
        let status = child.wait(timeout: .seconds(30)) ?? child.stop()
        // Unreadable output is reported as the child's failure just below.
        guard status == 0, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(output.utf8)), let object = value.objectValue
        else {
            throw CLIError.runtime("the memory benchmark process failed (exit \(status)): \(output.prefix(300))")
        }
        return object
    }

    /// Removes a store file and its WAL and shared-memory files.
    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] {
            do {
                try FileManager.default.removeItem(atPath: path + suffix)
            } catch {
                continue  // already gone (SQLite removes -wal and -shm on close)
            }
        }
    }
}

/// A destination that takes every batch at once (the engine-running figure sends nothing
/// during its run; this is only there so the engine has a destination).
private struct AcceptingSender: EventSender {
    var endpointDescription: String { "bench://accepting" }
    func send(_ batch: OutgoingBatch) async -> SendResult { SendResult(.delivered) }
}

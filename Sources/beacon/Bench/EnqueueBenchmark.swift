@_spi(Benchmarks) import Beacon
import BeaconWire
import Foundation
import GRDB

/// `beacon bench enqueue`: durable enqueue throughput against raw SQLite inserts of the
/// same rows, `track` call latency, and memory with a million events queued.
struct EnqueueBenchmark: Sendable {
    /// Events per throughput run. Default 200,000.
    var events = 200_000
    /// Runs of each side (the median is reported). Default 5.
    var runs = 5
    /// Calls measured for latency, in rounds of 8,000 (under the memory buffer, so no call
    /// waits on backpressure; each round waits for its commits). Default 40,000.
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
        public var latencyMicroseconds: (p50: Double, p99: Double, p999: Double, max: Double) = (0, 0, 0, 0)
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
            let engine = try await engineEnqueue(run: run)
            result.engineEventsPerSecond.append(engine)
            progress("run \(run)/\(runs): raw SQLite \(Int(saturating: raw)) rows/s, engine \(Int(saturating: engine)) events/s")
        }
        result.latencyMicroseconds = try await latency()
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
        let start = ContinuousClock.now
        try pool.writeWithoutTransaction { db in
            try db.inTransaction {
                let insert = try EventRowInserter(db)
                for (index, row) in payloads.enumerated() {
                    try insert.insert(
                        seq: Int64(index + 1), messageId: row.id, name: "Benchmark Event", payload: row.payload, createdAt: now)
                }
                return .commit
            }
        }
        return Double(events) / start.duration(to: .now).inSeconds
    }

    /// The engine: `track` (validate, id, timestamp, encode) on this task, group commit on
    /// the writer, timed from the first call until every event is committed.
    func engineEnqueue(run: Int) async throws -> Double {
        let path = "\(directory)/engine-\(run).sqlite"
        defer { Self.remove(path) }
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        let start = ContinuousClock.now
        for _ in 0..<events {
            try tracker.track("Benchmark Event", properties: Self.properties)
        }
        await queue.waitForPendingWrites()
        let elapsed = start.duration(to: .now).inSeconds
        guard queue.depth.events == events else {
            throw StorageError(kind: .other, message: "benchmark stored \(queue.depth.events) of \(events) events")
        }
        return Double(events) / elapsed
    }

    /// Fire-and-forget `track` call latency, each call timed on its own.
    func latency() async throws -> (Double, Double, Double, Double) {
        let path = "\(directory)/latency.sqlite"
        defer { Self.remove(path) }
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(latencyCalls)
        for round in stride(from: 0, to: latencyCalls, by: 8_000) {
            for _ in round..<min(latencyCalls, round + 8_000) {
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
    /// process's peak memory afterwards (run it in a process of its own).
    static func fillForMemory(path: String, count: Int) async throws -> Int {
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        for _ in 0..<count {
            try tracker.track("Benchmark Event", properties: properties)
        }
        await queue.waitForPendingWrites()
        return queue.depth.events
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

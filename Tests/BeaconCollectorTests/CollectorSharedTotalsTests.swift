@testable import BeaconCollector
import BeaconTesting
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// `/v1/stats` and `/metrics` report the store's shared totals (for SQLite, the file's)
/// beside the per-process counters, from a counter table the inserts keep.
@Suite("Collector shared totals")
struct CollectorSharedTotalsTests {
    private func configuration(_ path: String) -> CollectorConfiguration {
        CollectorConfiguration(port: 0, databasePath: path)
    }

    /// `shared` of a `/v1/stats` answer.
    private func shared(_ answer: Answer) -> [String: Any] {
        (answer.json["shared"] as? [String: Any]) ?? [:]
    }

    @Test("The file's totals count distinct events and the batches that stored any; a restarted collector still sees them")
    func sqliteTotalsSurviveARestart() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("collector.sqlite").path
            try await withCollector(configuration(path)) { collector, port in
                try await withClient(port: port) { client in
                    let first = batchBody((0..<3).map { trackJSON(messageId: "t-\($0)") })
                    #expect(try await call(client, .post, "/v1/batch", body: first).status == 200)
                    #expect(try await call(client, .post, "/v1/batch", body: first).status == 200)  // all duplicates
                    let second = batchBody((2..<5).map { trackJSON(messageId: "t-\($0)") })
                    #expect(try await call(client, .post, "/v1/batch", body: second).status == 200)  // 2 new, 1 duplicate
                    let stats = try await call(client, .get, "/v1/stats")
                    #expect(stats.json["stored"] as? Int == 5)
                    #expect(stats.json["duplicates"] as? Int == 4)
                    #expect(shared(stats)["store"] as? String == "sqlite")
                    #expect(shared(stats)["events"] as? Int == 5)
                    #expect(shared(stats)["batches"] as? Int == 2)
                    #expect(stats.json["sharedProblem"] == nil)
                }
                #expect(try await collector.sharedTotals() == StoreTotals(store: "sqlite", events: 5, batches: 2))
                #expect(try await collector.storedCount() == 5)
            }
            try await withCollector(configuration(path)) { collector, port in
                try await withClient(port: port) { client in
                    let stats = try await call(client, .get, "/v1/stats")
                    #expect(stats.json["stored"] as? Int == 0)  // this process stored nothing yet
                    #expect(shared(stats)["events"] as? Int == 5)
                    let metrics = try await call(client, .get, "/metrics")
                    let lines = Set(metrics.text.split(separator: "\n").map(String.init))
                    #expect(lines.contains("beacon_collector_store_events 5.0") || lines.contains("beacon_collector_store_events 5"))
                    #expect(lines.contains("beacon_collector_store_up 1.0") || lines.contains("beacon_collector_store_up 1"))
                }
            }
        }
    }

    @Test("A file written before the counter table is counted once when a collector opens it")
    func olderFileIsCountedOnOpen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("old.sqlite").path
            try await StoreFile.open(path).write { db in
                try db.execute(sql: """
                    CREATE TABLE collector_events (message_id TEXT PRIMARY KEY NOT NULL, type TEXT NOT NULL, name TEXT,
                        user_id TEXT, anonymous_id TEXT, timestamp TEXT, received_at INTEGER NOT NULL, json TEXT NOT NULL);
                    INSERT INTO collector_events VALUES ('old-1', 'track', 'A', NULL, 'a', NULL, 1, '{}');
                    INSERT INTO collector_events VALUES ('old-2', 'track', 'A', NULL, 'a', NULL, 1, '{}');
                    """)
            }
            try await withCollector(configuration(path)) { collector, port in
                #expect(try await collector.sharedTotals().events == 2)
                try await withClient(port: port) { client in
                    let body = batchBody([trackJSON(messageId: "old-2"), trackJSON(messageId: "new-1")])
                    let answer = try await call(client, .post, "/v1/batch", body: body)
                    #expect(answer.status == 200)
                }
                #expect(try await collector.sharedTotals().events == 3)
                #expect(try await collector.storedCount() == 3)
            }
        }
    }

    @Test("Totals that no collector wrote (negative, or Int64.max and more) are not reported; the stats still answer", arguments: [
        "UPDATE collector_totals SET events = -1", "UPDATE collector_totals SET batches = -9223372036854775808",
        "UPDATE collector_totals SET events = 'many'", "UPDATE collector_totals SET events = 1e300",
        "UPDATE collector_totals SET events = 9223372036854775807 + 1",
    ])
    func invalidTotalsAreRefused(sql: String) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("edited.sqlite").path
            _ = try EventStore(path: path)  // creates the tables
            try await StoreFile.open(path).write { db in try db.execute(sql: sql) }
            try await withCollector(configuration(path)) { collector, port in
                await #expect(throws: (any Error).self) { try await collector.sharedTotals() }
                try await withClient(port: port) { client in
                    let stats = try await call(client, .get, "/v1/stats")
                    #expect(stats.status == 200)
                    #expect(stats.json["shared"] == nil)
                    #expect((stats.json["sharedProblem"] as? String)?.contains("collector_totals") == true)
                    let metrics = try await call(client, .get, "/metrics")
                    #expect(metrics.text.contains("beacon_collector_store_up 0"))
                }
            }
        }
    }

    @Test("A reading is reused for a second, then read again; a failed read keeps the last reading with its age")
    func readerCachesForASecond() async throws {
        let store = CountingStore()
        let clock = Mutex(ContinuousClock.now)
        let reader = SharedTotalsReader(store: store, maxAge: .seconds(1), timeout: .seconds(5), now: { clock.withLock { $0 } })
        let first = await reader.read()
        #expect(first.totals?.events == 1)
        #expect(store.reads == 1)
        clock.withLock { $0 += .milliseconds(900) }
        let cached = await reader.read()
        #expect(store.reads == 1)
        #expect(cached.totals?.events == 1)
        #expect(abs((cached.totals?.ageSeconds ?? 0) - 0.9) < 0.001)
        clock.withLock { $0 += .milliseconds(200) }
        #expect(await reader.read().totals?.events == 2)
        #expect(store.reads == 2)
        store.failing = true
        clock.withLock { $0 += .seconds(2) }
        let failed = await reader.read()
        #expect(failed.problem == "down for the test")
        #expect(failed.totals?.events == 2)
        #expect(abs((failed.totals?.ageSeconds ?? 0) - 2) < 0.001)
    }
}

/// A store whose totals count its own reads, and can fail.
private final class CountingStore: StubCollectorStore, @unchecked Sendable {
    // @unchecked: both fields live behind `state`'s lock.
    private let state = Mutex((reads: 0, failing: false))

    var reads: Int { state.withLock { $0.reads } }
    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    func totals() async throws -> StoreTotals {
        let (reads, failing) = state.withLock { state in
            state.reads += 1
            return (state.reads, state.failing)
        }
        if failing { throw StoreUnavailableError(reason: "down for the test", retryAfterSeconds: 2) }
        return StoreTotals(store: "test", events: reads, batches: reads)
    }

    func insert(_ batch: AcceptedBatch) async throws -> StoreInsertResult { StoreInsertResult(stored: 0, duplicates: 0) }
}

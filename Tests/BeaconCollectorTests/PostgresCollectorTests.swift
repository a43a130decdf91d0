@testable import BeaconCollector
import BeaconTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Collectors over one real PostgreSQL (`BEACON_TEST_POSTGRES`, set by `.ci/run`), each
/// test in a schema of its own. (The outage runs on a private server, in
/// ``PostgresAcceptanceTests``: other suites use the shared one at the same time.)
@Suite(
    "Collector over PostgreSQL", .serialized,
    .enabled(if: PostgresTestDatabase.mustRun, "BEACON_TEST_POSTGRES is not set (.ci/run sets up a local PostgreSQL)"),
    .timeLimit(.minutes(2)))
struct PostgresCollectorTests {
    private func configuration(_ store: PostgresStoreConfiguration) -> CollectorConfiguration {
        var configuration = CollectorConfiguration(port: 0)
        configuration.postgres = store
        return configuration
    }

    @Test("Two collectors over one database store each messageId once; the database counts stored and duplicates")
    func twoCollectorsOneDatabase() async throws {
        // A generous timeout: the whole suite runs beside this test on two shared cores.
        try await PostgresTestDatabase.withSchema(operationTimeout: .seconds(30)) { shared in
            // All 40 requests at once: room for each to wait (past it they would be answered 503).
            var roomy = shared
            roomy.pendingPerConnection = 16
            let store = roomy
            try await withCollector(configuration(store)) { first, firstPort in
                try await withCollector(configuration(store)) { second, secondPort in
                    // 20 batches of 50; every batch goes to one collector and again to the other,
                    // both at once, and batches overlap their neighbours by 10 ids.
                    let batches = (0..<20).map { batch in (batch * 40..<batch * 40 + 50).map { "two-\($0)" } }
                    let distinct = Set(batches.joined())
                    let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                        for (index, ids) in batches.enumerated() {
                            let body = batchBody(ids.map { trackJSON(messageId: $0) })
                            for port in index % 2 == 0 ? [firstPort, secondPort] : [secondPort, firstPort] {
                                group.addTask {
                                    // A patient client: the whole suite shares two cores with this burst.
                                    try await withClient(port: port, timeout: .seconds(60)) { client in
                                        try await call(client, .post, "/v1/batch", body: body)
                                    }
                                }
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.filter { $0.status != 200 }.prefix(3).map(\.text))")
                    let stored = answers.compactMap { $0.json["stored"] as? Int }.reduce(0, +)
                    let duplicates = answers.compactMap { $0.json["duplicates"] as? Int }.reduce(0, +)
                    #expect(stored == distinct.count)
                    #expect(duplicates == batches.count * 2 * 50 - distinct.count)
                    let ids = try await first.storedMessageIds()
                    #expect(ids.count == distinct.count)
                    #expect(Set(ids).symmetricDifference(distinct).sorted() == [])
                    #expect(try await second.storedCount() == distinct.count)
                    #expect(first.stats().stored + second.stats().stored == distinct.count)
                    // Both collectors report the database's totals: every distinct event, and
                    // the batches that stored any (a batch the other collector stored first stores none).
                    let storing = answers.filter { ($0.json["stored"] as? Int ?? 0) > 0 }.count
                    for port in [firstPort, secondPort] {
                        let stats = try await withClient(port: port) { client in try await call(client, .get, "/v1/stats") }
                        let shared = (stats.json["shared"] as? [String: Any]) ?? [:]
                        #expect(shared["events"] as? Int == distinct.count)
                        #expect(shared["batches"] as? Int == storing)
                    }
                    #expect(try await first.sharedTotals() == StoreTotals(store: "postgres", events: distinct.count, batches: storing))
                }
            }
        }
    }

    @Test("A batch the database refuses part of stores nothing; resent once the cause is gone, it stores all")
    func batchIsAllOrNothing() async throws {
        try await PostgresTestDatabase.withSchema { store in
            try await withCollector(configuration(store)) { collector, port in
                try await withClient(port: port) { client in
                    let warmUp = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "warm")]))
                    #expect(warmUp.status == 200)  // the schema exists now
                    let address = try #require(PostgresTestDatabase.address)
                    let schema = try #require(store.schema)
                    let added = PostgresTestDatabase.psql(
                        address,
                        "ALTER TABLE \(schema).collector_events ADD CONSTRAINT no_poison CHECK (message_id <> 'poison')")
                    #expect(added.status == 0)
                    let ids = ["a-1", "a-2", "poison", "a-3"]
                    let body = batchBody(ids.map { trackJSON(messageId: $0) })
                    let refused = try await call(client, .post, "/v1/batch", body: body)
                    #expect(refused.status == 500)
                    #expect(refused.errorCode == "storage_failed")
                    #expect(try await collector.storedMessageIds() == ["warm"])
                    PostgresTestDatabase.psql(address, "ALTER TABLE \(schema).collector_events DROP CONSTRAINT no_poison")
                    let accepted = try await call(client, .post, "/v1/batch", body: body)
                    #expect(accepted.status == 200)
                    #expect(accepted.json["stored"] as? Int == 4)
                    #expect(try await collector.storedMessageIds() == ["warm"] + ids)
                }
            }
        }
    }

    @Test("NFC and NFD spellings of one messageId are two events, stored byte for byte")
    func normalizationFormsAreDistinct() async throws {
        let composed = "caf\u{E9}-1"
        let decomposed = "cafe\u{301}-1"
        try await PostgresTestDatabase.withSchema { store in
            try await withCollector(configuration(store)) { collector, port in
                try await withClient(port: port) { client in
                    let body = batchBody([trackJSON(messageId: composed), trackJSON(messageId: decomposed)])
                    let first = try await call(client, .post, "/v1/batch", body: body)
                    #expect(first.json["stored"] as? Int == 2)
                    let again = try await call(client, .post, "/v1/batch", body: body)
                    #expect(again.json["stored"] as? Int == 0)
                    #expect(again.json["duplicates"] as? Int == 2)
                }
                let stored = try await collector.storedMessageIds()
                #expect(stored.map { Array($0.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])
                let events = try await collector.storedEvents()
                #expect(events.map(\.name) == ["Order Completed", "Order Completed"])
                #expect(events.first?.json == trackJSON(messageId: composed))
            }
        }
    }

    @Test("A database from before the counter table gets its totals counted once by the migration")
    func totalsMigrationCountsEarlierEvents() async throws {
        try await PostgresTestDatabase.withSchema { store in
            let address = try #require(PostgresTestDatabase.address)
            let schema = try #require(store.schema)
            // The schema as version 2 left it, with two events in it.
            for sql in [
                "CREATE SCHEMA \(schema)", "SET search_path TO \(schema); " + PostgresSchema.migrations[0],
                "SET search_path TO \(schema); " + PostgresSchema.migrations[1],
                "CREATE TABLE \(schema).collector_schema_version (version integer PRIMARY KEY)",
                "INSERT INTO \(schema).collector_schema_version VALUES (1), (2)",
                "INSERT INTO \(schema).collector_events (message_id, type, received_at, json) VALUES ('old-1', 'track', 1, '{}'), ('old-2', 'track', 1, '{}')",
            ] {
                #expect(PostgresTestDatabase.psql(address, sql).status == 0, "\(sql)")
            }
            try await withCollector(configuration(store)) { collector, port in
                try await withClient(port: port) { client in
                    let body = batchBody([trackJSON(messageId: "old-1"), trackJSON(messageId: "new-1")])
                    let answer = try await call(client, .post, "/v1/batch", body: body)
                    #expect(answer.json["stored"] as? Int == 1)
                    let stats = try await call(client, .get, "/v1/stats")
                    let shared = (stats.json["shared"] as? [String: Any]) ?? [:]
                    #expect(shared["store"] as? String == "postgres")
                    #expect(shared["events"] as? Int == 3)
                    #expect(shared["batches"] as? Int == 1)
                }
                #expect(try await collector.storedCount() == 3)
            }
        }
    }

    @Test("The ingest baseline refuses a schema that holds events and leaves it as it was; a fresh one it drops after use")
    func baselineLeavesAnotherSchemaAlone() async throws {
        let baseline = try StoreBaseline(bodies: [batchBody([trackJSON(messageId: "b-1"), trackJSON(messageId: "b-2")])])
        let address = try #require(PostgresTestDatabase.address)
        try await PostgresTestDatabase.withSchema { store in
            let schema = try #require(store.schema)
            try await withCollector(configuration(store)) { _, port in
                try await withClient(port: port) { client in
                    let answer = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "kept")]))
                    #expect(answer.status == 200)
                }
            }
            await #expect(throws: CollectorSetupError.self) {
                _ = try await baseline.insertIntoPostgres(store, connections: 2, logger: Logger(label: "test"))
            }
            let kept = PostgresTestDatabase.psql(address, "SELECT message_id FROM \(schema).collector_events")
            #expect(kept.status == 0, "the schema is still there")
            #expect(kept.output.trimmingCharacters(in: .whitespacesAndNewlines) == "kept")
        }
        try await PostgresTestDatabase.withSchema { store in
            let schema = try #require(store.schema)
            let elapsed = try await baseline.insertIntoPostgres(store, connections: 2, logger: Logger(label: "test"))
            #expect(elapsed > .zero)
            let left = PostgresTestDatabase.psql(address, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '\(schema)'")
            #expect(left.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the baseline drops the schema it used")
        }
    }
}

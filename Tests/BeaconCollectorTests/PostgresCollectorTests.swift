import BeaconCollector
import BeaconTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Collectors over one real PostgreSQL (`BEACON_TEST_POSTGRES`, set by `.ci/run`).
///
/// Serialized: the outage test stops the shared cluster, which no other test of this
/// suite may see.
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
                                    try await withClient(port: port, timeout: .seconds(30)) { client in try await call(client, .post, "/v1/batch", body: body) }
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

    @Test("PostgreSQL stopped: 503 with Retry-After and /health unavailable; restarted: the same collector stores again")
    func outageAndRecovery() async throws {
        try await PostgresTestDatabase.withSchema(operationTimeout: .seconds(1)) { store in
            try await withCollector(configuration(store)) { collector, port in
                try await withClient(port: port) { client in
                    let before = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "before")]))
                    #expect(before.status == 200)
                    #expect(try await call(client, .get, "/health").status == 200)

                    #expect(PostgresTestDatabase.cluster("stop") == 0)
                    var restarted = false
                    defer { if !restarted { PostgresTestDatabase.cluster("start") } }

                    let body = batchBody([trackJSON(messageId: "during-1"), trackJSON(messageId: "during-2")])
                    let refused = try await call(client, .post, "/v1/batch", body: body)
                    #expect(refused.status == 503)
                    #expect(refused.errorCode == "store_unavailable")
                    #expect(refused.headers[.retryAfter] == "2")
                    let health = try await call(client, .get, "/health")
                    #expect(health.status == 503)
                    #expect(health.json["status"] as? String == "unavailable")
                    #expect(health.json["store"] as? String == "postgres")
                    #expect(!health.text.contains("beacon:beacon"))

                    #expect(PostgresTestDatabase.cluster("start") == 0)
                    restarted = true
                    // Bounded polling: the pool reconnects by itself (backoff under 3 s after a short outage).
                    let deadline = ContinuousClock.now + .seconds(30)
                    var answer = try await call(client, .post, "/v1/batch", body: body)
                    while answer.status != 200 && ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(200))
                        answer = try await call(client, .post, "/v1/batch", body: body)
                    }
                    #expect(answer.status == 200, "\(answer.text)")
                    #expect(answer.json["stored"] as? Int == 2)
                    #expect(try await call(client, .get, "/health").status == 200)
                }
                #expect(try await collector.storedMessageIds() == ["before", "during-1", "during-2"])
            }
        }
    }
}

import BeaconCollector
import BeaconTesting
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

/// Each messageId is stored once, however many times it is delivered.
@Suite("Collector deduplication")
struct CollectorDeduplicationTests {
    @Test("A batch delivered twice is stored once and counted as duplicates")
    func batchDeliveredTwice() async throws {
        let body = batchBody((0..<50).map { trackJSON(messageId: "dup-\($0)") })
        try await withCollector { collector, port in
            let (first, second) = try await withClient(port: port) { client in
                let first = try await call(client, .post, "/v1/batch", body: body)
                let second = try await call(client, .post, "/v1/batch", body: gzip(body), headers: [.contentEncoding: "gzip"])
                return (first, second)
            }
            #expect(first.status == 200)
            #expect(first.json["stored"] as? Int == 50)
            #expect(second.status == 200)
            #expect(second.json["stored"] as? Int == 0)
            #expect(second.json["duplicates"] as? Int == 50)
            #expect(try await collector.storedCount() == 50)
            let stats = collector.stats()
            #expect(stats.received == 100)
            #expect(stats.stored == 50)
            #expect(stats.duplicates == 50)
        }
    }

    @Test("Overlapping batches store the union")
    func overlappingBatches() async throws {
        try await withCollector { collector, port in
            try await withClient(port: port) { client in
                _ = try await call(client, .post, "/v1/batch", body: batchBody((0..<10).map { trackJSON(messageId: "o-\($0)") }))
                let answer = try await call(
                    client, .post, "/v1/batch", body: batchBody((5..<15).map { trackJSON(messageId: "o-\($0)") }))
                #expect(answer.json["stored"] as? Int == 5)
                #expect(answer.json["duplicates"] as? Int == 5)
            }
            #expect(try await collector.storedMessageIds() == (0..<15).map { "o-\($0)" })
        }
    }

    @Test("Large overlapping batches count every duplicate and keep arrival order", arguments: [1, 63, 64, 65, 500, 777])
    func largeOverlappingBatches(size: Int) async throws {
        try await withCollector { collector, port in
            try await withClient(port: port) { client in
                let first = try await call(
                    client, .post, "/v1/batch", body: batchBody((0..<size).map { trackJSON(messageId: "l-\($0)") }))
                #expect(first.json["stored"] as? Int == size)
                // Every other event of the first batch again, interleaved with new ones.
                let again = (0..<size).map { $0 * 2 }.filter { $0 < size }
                let mixed = (0..<size).flatMap { [$0 * 2 < size ? $0 * 2 : nil, size + $0] }.compactMap { $0 }
                let second = try await call(
                    client, .post, "/v1/batch", body: batchBody(mixed.map { trackJSON(messageId: "l-\($0)") }))
                #expect(second.status == 200, "\(second.text)")
                #expect(second.json["received"] as? Int == mixed.count)
                #expect(second.json["stored"] as? Int == size)
                #expect(second.json["duplicates"] as? Int == again.count)
            }
            let expected = (0..<(2 * size)).map { "l-\($0)" }
            #expect(try await collector.storedMessageIds() == expected)
        }
    }

    @Test("A file database keeps events across collector restarts and still deduplicates")
    func fileDatabaseSurvivesRestart() async throws {
        try await withTemporaryDirectory { directory in
            let configuration = CollectorConfiguration(databasePath: directory.appendingPathComponent("collector.sqlite").path)
            let body = batchBody((0..<5).map { trackJSON(messageId: "f-\($0)") })
            for round in 0..<2 {
                try await withCollector(configuration) { collector, port in
                    let answer = try await withClient(port: port) { client in
                        try await call(client, .post, "/v1/batch", body: body)
                    }
                    #expect(answer.json["stored"] as? Int == (round == 0 ? 5 : 0))
                    #expect(try await collector.storedCount() == 5)
                }
            }
        }
    }

    @Test("A store failure in the middle of a batch stores none of it, and the next batch is stored")
    func failedInsertRollsBackTheWholeBatch() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("collector.sqlite").path
            try await withCollector(CollectorConfiguration(databasePath: path)) { collector, port in
                // The 70th event fails in the second INSERT statement of its transaction, after
                // the first one stored 64 rows: only a rollback keeps those out.
                let other = try StoreFile.open(path)
                try await other.write { db in
                    try db.execute(sql: """
                        CREATE TRIGGER fail_insert BEFORE INSERT ON collector_events WHEN NEW.message_id = 'r-69'
                        BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                        """)
                }
                try await withClient(port: port) { client in
                    let failed = try await call(client, .post, "/v1/batch", body: batchBody((0..<70).map { trackJSON(messageId: "r-\($0)") }))
                    #expect(failed.status == 500)
                    #expect(failed.errorCode == "storage_failed")
                    #expect(try await collector.storedCount() == 0)
                    let next = try await call(client, .post, "/v1/batch", body: batchBody((0..<69).map { trackJSON(messageId: "r-\($0)") }))
                    #expect(next.status == 200, "\(next.text)")
                    #expect(next.json["stored"] as? Int == 69)
                }
                #expect(try await collector.storedCount() == 69)
            }
        }
    }
}

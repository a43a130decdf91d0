import BeaconCollector
import BeaconTesting
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

/// A messageId is stored with exactly the bytes it was sent with, and two ids are the same
/// id exactly when their UTF-8 bytes are equal, within a batch and across batches. Ids with
/// control characters (U+0000–U+001F) are refused by name, never stored cut short.
@Suite("Collector messageId bytes")
struct CollectorMessageIdBytesTests {
    /// The stored messageIds as raw bytes, read from the SQLite file, in arrival order.
    static func storedIdBytes(_ path: String) throws -> [[UInt8]] {
        let queue = try StoreFile.open(path)
        return try queue.read { db in
            try Data.fetchAll(db, sql: "SELECT CAST(message_id AS BLOB) FROM collector_events ORDER BY rowid").map { Array($0) }
        }
    }

    @Test("Two messageIds that differ after a NUL are refused with invalid_message_id, nothing stored")
    func nulIdsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("c.sqlite").path
            try await withCollector(CollectorConfiguration(databasePath: path)) { collector, port in
                let body = batchBody([trackJSON(messageId: #"ord-7\u0000a"#), trackJSON(messageId: #"ord-7\u0000b"#)])
                let answer = try await withClient(port: port) { try await call($0, .post, "/v1/batch", body: body) }
                #expect(answer.status == 400, "\(answer.text)")
                #expect(answer.errorCode == "invalid_events")
                #expect(answer.rejected.map { $0["index"] as? Int } == [0, 1])
                #expect(answer.rejected.map { $0["code"] as? String } == ["invalid_message_id", "invalid_message_id"])
                #expect(try await collector.storedCount() == 0)
                #expect(collector.stats().stored == 0)
            }
            #expect(try Self.storedIdBytes(path).isEmpty)
        }
    }

    @Test(
        "Every C0 control character in a messageId is refused by name",
        arguments: [#"\u0000"#, #"\u0001"#, #"\t"#, #"\n"#, #"\r"#, #"\u001b"#, #"\u001F"#, #"\b"#, #"\f"#])
    func controlCharactersRefused(escape: String) async throws {
        try await withCollector { collector, port in
            let body = batchBody([trackJSON(messageId: "fine-1"), trackJSON(messageId: "x\(escape)y")])
            let answer = try await withClient(port: port) { try await call($0, .post, "/v1/batch", body: body) }
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.rejected.count == 1)
            #expect(answer.rejected.first?["index"] as? Int == 1)
            #expect(answer.rejected.first?["code"] as? String == "invalid_message_id")
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("A single event with a NUL in its messageId is refused on /v1/track too")
    func nulIdRefusedOnTrack() async throws {
        try await withCollector { collector, port in
            let answer = try await withClient(port: port) {
                try await call($0, .post, "/v1/track", body: bytes(trackJSON(messageId: #"t\u0000"#)))
            }
            #expect(answer.status == 400)
            #expect(answer.errorCode == "invalid_message_id")
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("NFC and NFD spellings of one messageId are two ids, in one batch and across batches")
    func canonicalEquivalentsAreDistinct() async throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("c.sqlite").path
            try await withCollector(CollectorConfiguration(databasePath: path)) { collector, port in
                try await withClient(port: port) { client in
                    let one = try await call(
                        client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: nfc), trackJSON(messageId: nfd)]))
                    #expect(one.status == 200, "\(one.text)")
                    #expect(one.json["stored"] as? Int == 2)
                    #expect(one.json["duplicates"] as? Int == 0)
                    // Across batches the same rule: each spelling again is a duplicate of itself only.
                    let again = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: nfd)]))
                    #expect(again.json["stored"] as? Int == 0)
                    #expect(again.json["duplicates"] as? Int == 1)
                    let escaped = try await call(
                        client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: #"caf\u00e9"#)]))
                    #expect(escaped.json["duplicates"] as? Int == 1, "an escaped spelling of the same bytes is the same id")
                }
                #expect(try await collector.storedCount() == 2)
            }
            #expect(try Self.storedIdBytes(path) == [Array(nfc.utf8), Array(nfd.utf8)])
        }
    }

    @Test("Across two batches, NFC then NFD, both are stored with their own bytes")
    func canonicalEquivalentsAcrossBatches() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("c.sqlite").path
            try await withCollector(CollectorConfiguration(databasePath: path)) { _, port in
                try await withClient(port: port) { client in
                    let first = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "\u{C5}x")]))
                    let second = try await call(
                        client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "A\u{30A}x")]))
                    #expect(first.json["stored"] as? Int == 1)
                    #expect(second.json["stored"] as? Int == 1)
                }
            }
            #expect(try Self.storedIdBytes(path) == [Array("\u{C5}x".utf8), Array("A\u{30A}x".utf8)])
        }
    }
}

import BeaconCollector
import BeaconTesting
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

/// What the collector stores for each event, column by column, for values written with
/// escapes or in unusual but valid ways; how it compares `messageId`s spelled differently;
/// and which bodies it refuses as invalid UTF-8. Only public behaviour is checked, so the
/// same expectations hold whatever the ingest path does inside.
@Suite("Collector stored fields and messageId comparison")
struct CollectorStoredFieldsTests {
    /// Posts one plain batch and returns the answer.
    static func post(_ port: Int, _ body: [UInt8]) async throws -> Answer {
        try await withClient(port: port) { client in
            try await call(client, .post, "/v1/batch", body: body)
        }
    }

    @Test("Escaped, numeric, null, empty and fallback fields are stored as their decoded text")
    func storedColumns() async throws {
        let events = [
            #"{"type":"tr\u0061ck","event":"Caf\u00e9 \"Opened\"","messageId":"esc-\u0031","userId":42,"timestamp":null,"originalTimestamp":"2026-01-02T03:04:05Z","properties":{}}"#,
            #"{"type":"page","name":"Home","event":"not the name of a page","messageId":"page-1","anonymousId":"a-1"}"#,
            #"{"type":"screen","name":null,"messageId":"screen-1","userId":"","anonymousId":-1.5e3}"#,
            #"{"type":"identify","messageId":"id-é-✓","anonymousId":"a-2","timestamp":"2026-02-03T11:30:07.000+01:00","originalTimestamp":"2020-01-01T00:00:00Z"}"#,
            #"{"messageId":"track-default","event":"E","userId":"u\/1","context":null,"sentAt":"2026-02-03 11:30:07.5z"}"#,
        ]
        try await withCollector { collector, port in
            let answer = try await Self.post(port, batchBody(events))
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json["stored"] as? Int == 5)
            let stored = try await collector.storedEvents()
            try #require(stored.count == 5)
            #expect(stored.map(\.messageId) == ["esc-1", "page-1", "screen-1", "id-é-✓", "track-default"])
            #expect(stored.map(\.type) == ["track", "page", "screen", "identify", "track"])
            #expect(stored.map(\.name) == ["Café \"Opened\"", "Home", nil, nil, "E"])
            #expect(stored.map(\.userId) == ["42", nil, "", nil, "u/1"])
            #expect(stored.map(\.anonymousId) == [nil, "a-1", "-1.5e3", "a-2", nil])
            #expect(stored.map(\.timestamp) == ["2026-01-02T03:04:05Z", nil, nil, "2026-02-03T11:30:07.000+01:00", nil])
            #expect(stored.map(\.json) == events)
            let receivedAt = Set(stored.map(\.receivedAtMilliseconds))
            #expect(receivedAt.count == 1)
        }
    }

    @Test("A single-event route stores its own type when the event names none")
    func singleRouteDefaultType() async throws {
        try await withCollector { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/identify", body: bytes(#"{"messageId":"s-1","userId":"u"}"#))
            }
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try await collector.storedEvents().map(\.type) == ["identify"])
        }
    }

    /// Pairs of spellings of the same UTF-8 bytes, which repeat each other.
    static let equalSpellings: [(String, String)] = [
        (#"ab"#, #"a\u0062"#),  // an escape
        (#"a/b"#, #"a\/b"#),  // an escaped solidus
        (#"\u00e9t\u00e9"#, "été"),  // escaped and raw non-ASCII
        (#"\u212A-2"#, "\u{212A}-2"),  // KELVIN SIGN escaped and raw
    ]

    @Test("A messageId repeated in another spelling of the same text is a duplicate in the batch")
    func equalSpellingsRepeat() async throws {
        try await withCollector { collector, port in
            for (first, second) in Self.equalSpellings {
                let body = batchBody([
                    trackJSON(messageId: "before-\(UUID().uuidString)"), trackJSON(messageId: first),
                    trackJSON(messageId: second),
                ])
                let answer = try await Self.post(port, body)
                #expect(answer.status == 400, "\(first) / \(second): \(answer.text)")
                #expect(answer.rejected.map { $0["index"] as? Int } == [2], "\(first) / \(second)")
                #expect(answer.rejected.first?["code"] as? String == "duplicate_message_id")
            }
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("messageIds that differ in case, in width or by a trailing space are different ids")
    func differentIds() async throws {
        // Canonically equivalent spellings are other bytes, so other ids (as SQLite's key compares them).
        let ids = [
            "Ab", "ab", "aB", "ab ", "ａｂ", "\u{212B}", "\u{C5}x", "a\u{301}", "\u{E1}\u{E1}", "caf\u{E9}", "cafe\u{301}",
            "K-1", "\u{212A}-1", "\u{212A}-3", "K-3",
        ]
        try await withCollector { collector, port in
            let answer = try await Self.post(port, batchBody(ids.map { trackJSON(messageId: $0) }))
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json["stored"] as? Int == ids.count)
            #expect(try await collector.storedMessageIds() == ids)
        }
    }

    @Test("An id stored from an escaped spelling deduplicates the plain spelling in a later batch")
    func escapedIdAcrossBatches() async throws {
        try await withCollector { collector, port in
            let first = try await Self.post(port, batchBody([trackJSON(messageId: #"x\u0079z"#)]))
            let second = try await Self.post(port, batchBody([trackJSON(messageId: "xyz")]))
            #expect(first.json["stored"] as? Int == 1)
            #expect(second.json["stored"] as? Int == 0)
            #expect(second.json["duplicates"] as? Int == 1)
            #expect(try await collector.storedMessageIds() == ["xyz"])
        }
    }

    /// A NUL (only an escaped `\u0000` can put one in) is refused wherever it is, by the
    /// one rule both stores share (``EventTextRule``: PostgreSQL's text cannot hold it);
    /// in a messageId it is named as such. Nothing of the batch is stored.
    @Test("Text with an escaped NUL is refused by the event text rule; a messageId with one is named")
    func escapedNul() async throws {
        let event = #"{"type":"track","event":"E\u0000F","messageId":"nul-a","userId":"u\u0000v"}"#
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("c.sqlite").path
            try await withCollector(CollectorConfiguration(databasePath: path)) { collector, port in
                let answer = try await Self.post(port, batchBody([event]))
                #expect(answer.status == 400, "\(answer.text)")
                #expect(answer.rejected.first?["code"] as? String == "invalid_text")
                #expect(answer.rejected.first?["messageId"] as? String == "nul-a")
                let refused = try await Self.post(
                    port, batchBody([#"{"type":"track","event":"E","messageId":"nul\u0000-b","userId":"u"}"#]))
                #expect(refused.status == 400)
                #expect(refused.rejected.first?["code"] as? String == "invalid_message_id")
                #expect(try await collector.storedEvents().isEmpty)
            }
        }
    }

    /// Bodies that are not well-formed UTF-8, each inside an otherwise valid batch.
    static let malformed: [(String, [UInt8])] = [
        ("overlong slash", [0xC0, 0xAF]),
        ("overlong 3-byte NUL", [0xE0, 0x80, 0x80]),
        ("overlong 4-byte", [0xF0, 0x8F, 0xBF, 0xBF]),
        ("high surrogate", [0xED, 0xA0, 0x80]),
        ("low surrogate", [0xED, 0xBF, 0xBF]),
        ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
        ("F5 lead byte", [0xF5, 0x80, 0x80, 0x80]),
        ("FF byte", [0xFF]),
        ("stray continuation", [0x80]),
        ("truncated 3-byte", [0xE2, 0x82]),
        ("truncated 4-byte", [0xF0, 0x9F, 0x98]),
        ("lead without continuation", [0xC3, 0x41]),
    ]

    @Test("Malformed UTF-8 anywhere in the body is invalid_utf8, even after a JSON error")
    func malformedUTF8() async throws {
        try await withCollector { collector, port in
            for (name, sequence) in Self.malformed {
                let valid = bytes(#"{"batch":[{"type":"track","event":"E","messageId":"m","userId":"u","properties":{"p":""#)
                let tail = bytes(#""}}]}"#)
                for body in [valid + sequence + tail, bytes(#"{"batch":[,"#) + sequence, sequence + tail] {
                    let answer = try await Self.post(port, body)
                    #expect(answer.status == 400, "\(name)")
                    #expect(answer.errorCode == "invalid_utf8", "\(name): \(answer.text)")
                }
            }
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("Every length of UTF-8 sequence, at every alignment, is accepted")
    func wellFormedUTF8() async throws {
        let text = "a é ✓ 😀 \u{10FFFF} \u{FFFD} \u{7FF}\u{800}\u{FFFF}\u{10000}"
        try await withCollector { collector, port in
            var events: [String] = []
            for padding in 0..<9 {
                events.append(trackJSON(messageId: "utf8-\(padding)", event: String(repeating: "p", count: padding) + text))
            }
            let answer = try await Self.post(port, batchBody(events))
            #expect(answer.status == 200, "\(answer.text)")
            let expected: [String?] = (0..<9).map { String(repeating: "p", count: $0) + text }
            #expect(try await collector.storedEvents().map(\.name) == expected)
        }
    }
}

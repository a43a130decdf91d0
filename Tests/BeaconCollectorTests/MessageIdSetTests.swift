@testable import BeaconCollector
import Testing

/// The per-batch set of messageIds: the same answers as a `Set<String>` of the decoded ids.
@Suite("MessageId set")
struct MessageIdSetTests {
    /// Parses `{"batch":[...]}` around `ids` (JSON string bodies, escapes allowed) and
    /// inserts each id into a set sized for `capacity`; returns what each insert answered.
    static func insertIds(_ ids: [String], capacity: Int? = nil) throws -> [Bool] {
        let events = ids.map { #"{"messageId":"\#($0)"}"# }
        let parsed = try BatchParser.parseBatch(Array(#"{"batch":[\#(events.joined(separator: ","))]}"#.utf8))
        return parsed.withText { text in
            var set = MessageIdSet(capacity: capacity ?? ids.count)
            return parsed.items.map { item in set.insert(item.fields.messageId!, in: text) }
        }
    }

    @Test("The messageId set compares ids by their UTF-8 bytes, after escapes are resolved")
    func messageIdSetEquality() throws {
        #expect(try Self.insertIds(["ab", #"a\u0062"#, "abc", "ab", "AB"]) == [true, false, true, false, true])
        // U+212A KELVIN SIGN is canonically equivalent to K, but other bytes: another id.
        #expect(try Self.insertIds(["K", "\u{212A}", #"\u212A"#, "k"]) == [true, true, false, true])
        #expect(try Self.insertIds(["\u{212A}", "K"]) == [true, true])
        // NFC and NFD spellings of é are different ids (SQLite's PRIMARY KEY compares bytes too).
        #expect(try Self.insertIds(["e\u{301}", "x", "\u{E9}", #"e\u0301"#, #"\u00e9"#]) == [true, true, true, false, false])
        #expect(try Self.insertIds([#"a\u0000b"#, #"a\u0000c"#, #"a\u0000b"#]) == [true, true, false])
        // Each answer agrees with a Set of the ids' UTF-8 bytes.
        let ids = ["a", "é", "K", "\u{212A}", "a", "e\u{301}", "Å", "\u{212B}", "A\u{30A}", "b", "\u{E9}"]
        var reference = Set<[UInt8]>()
        #expect(try Self.insertIds(ids) == ids.map { reference.insert(Array($0.utf8)).inserted })
    }

    @Test("The messageId set grows past its initial capacity, before and after a non-ASCII id")
    func messageIdSetGrows() throws {
        let ascii = (0..<1000).map { "id-\($0)" }
        #expect(try Self.insertIds(ascii + ascii, capacity: 1) == Array(repeating: true, count: 1000) + Array(repeating: false, count: 1000))
        let mixed = ascii.prefix(300) + ["é"] + ascii.prefix(300)
        #expect(try Self.insertIds(Array(mixed), capacity: 2) == Array(repeating: true, count: 301) + Array(repeating: false, count: 300))
    }
}

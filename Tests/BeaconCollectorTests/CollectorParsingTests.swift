@testable import BeaconCollector
import BeaconWire
import Testing

/// The batch parser, the validator and the fault decision, tested as plain functions.
@Suite("Collector parsing and decisions")
struct CollectorParsingTests {
    static func parse(_ text: String) throws(CollectorError) -> ParsedBody {
        try BatchParser.parseBatch(Array(text.utf8))
    }

    static func code(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("Valid JSON of every shape parses; event ranges cover each event exactly")
    func rangesAndFields() throws {
        let text = #" { "sentAt" : "2026-01-01T00:00:00Z", "batch" : [ {"type":"track","event":"A\u00e9\n","messageId":"m\"1","userId":12,"properties":{"a":[1,-2.5e3,true,false,null,{"b":"\ud83d\ude00"}]}} , {"type":"page","name":"P","messageId":"m2","anonymousId":"x"} ], "writeKey":"k" } "#
        let parsed = try Self.parse(text)
        #expect(parsed.items.count == 2)
        #expect(parsed.writeKey == "k")
        let bytes = Array(text.utf8)
        let first = String(decoding: bytes[parsed.items[0].range], as: UTF8.self)
        #expect(first.hasPrefix(#"{"type":"track""#) && first.hasSuffix("}}"))
        #expect(parsed.string(parsed.items[0].fields.event) == "Aé\n")
        #expect(parsed.string(parsed.items[0].fields.messageId) == "m\"1")
        #expect(parsed.items[0].fields.userId?.kind == .number)
        #expect(parsed.string(parsed.items[0].fields.userId) == "12")
        #expect(parsed.string(parsed.items[0].fields.type) == "track")
        #expect(parsed.items[0].fields.properties == .object)
        #expect(String(decoding: bytes[parsed.items[1].range], as: UTF8.self) == #"{"type":"page","name":"P","messageId":"m2","anonymousId":"x"}"#)
    }

    @Test("The eight-byte string skip finds the first quote, backslash or control byte of a word")
    func attentionMask() {
        func special(_ byte: UInt8) -> Bool { byte == 0x22 || byte == 0x5C || byte < 0x20 }
        func check(_ bytes: [UInt8]) {
            let mask = JSONScanner.attentionMask(bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
            let first = bytes.firstIndex(where: special)
            #expect((mask == 0 ? nil : mask.trailingZeroBitCount / 8) == first, "\(bytes)")
        }
        for filler: UInt8 in [0x61, 0x20, 0x7F, 0x80, 0xA0, 0xC3, 0xFF, 0x21, 0x23, 0x5B, 0x5D] {
            for position in 0..<8 {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = UInt8(value)
                    check(bytes)
                }
            }
        }
        var generator = SeededGenerator(seed: 3)
        let alphabet: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0xA0, 0xA2, 0xDC, 0xFF]
        for _ in 0..<100_000 {
            check((0..<8).map { _ in generator.nextUnit() < 0.5 ? UInt8(generator.nextUnit() * 256) : alphabet[Int(generator.nextUnit() * Double(alphabet.count))] })
        }
    }

    @Test("Strings of every length with an escape, or none, at every position parse to their text")
    func stringsAtEveryAlignment() throws {
        for length in 0..<24 {
            for position in 0...length {
                let plain = String(repeating: "é", count: length % 3) + String(repeating: "x", count: length)
                var escaped = plain
                escaped.insert(contentsOf: #"\n\u0041"#, at: escaped.index(escaped.startIndex, offsetBy: min(position, escaped.count)))
                let expected = escaped.replacingOccurrences(of: #"\n\u0041"#, with: "\nA")
                for (text, decoded) in [(plain, plain), (escaped, expected)] {
                    let parsed = try Self.parse(#"{"batch":[{"event":"\#(text)","messageId":"\#(text)"}],"writeKey":"\#(text)"}"#)
                    #expect(parsed.string(parsed.items[0].fields.event) == decoded)
                    #expect(parsed.string(parsed.items[0].fields.messageId) == decoded)
                    #expect(parsed.writeKey == decoded)
                }
                #expect(Self.code(#"{"batch":[{"event":"\#(plain)\#u{1}"}]}"#) == "invalid_json")
                #expect(Self.code(#"{"batch":[{"event":"\#(plain)\q"}]}"#) == "invalid_json")
                #expect(Self.code(#"{"batch":[{"event":"\#(plain)"#) == "invalid_json")
                #expect(Self.code(#"{"batch":[{"event":"\#(plain)\"#) == "invalid_json")
            }
        }
    }

    @Test("Syntax errors are invalid_json", arguments: [
        "{", #"{"batch":[1,]}"#, #"{"batch":[1],}"#, #"{"batch":[01]}"#, #"{"batch":["a\x"]}"#, "{\"batch\":[\"\u{01}\"]}",
        #"{"batch":[tru]}"#, #"{"batch":[1] "x":2}"#, #"{"batch":[1]} extra"#, #"{batch:[1]}"#, #"{"batch":[-]}"#,
        #"{"batch":[1.]}"#, String(repeating: "[", count: 200) + String(repeating: "]", count: 200),
    ])
    func syntaxErrors(_ text: String) {
        #expect(Self.code(text) == "invalid_json" || Self.code(text) == "body_not_object", "\(text)")
        if text.hasPrefix("{") { #expect(Self.code(text) == "invalid_json", "\(text)") }
    }

    @Test("Shape errors have their own codes")
    func shapeErrors() {
        #expect(Self.code("[1]") == "body_not_object")
        #expect(Self.code(#""text""#) == "body_not_object")
        #expect(Self.code(#"{"events":[]}"#) == "missing_batch")
        #expect(Self.code(#"{"batch":null}"#) == "batch_not_array")
        #expect(Self.code(#"{"batch":[]}"#) == "empty_batch")
        #expect(Self.code(#"{"\u0062atch":[]}"#) == "empty_batch")
    }

    @Test("Each call type's text is its wire name, and reads back as the same type")
    func typeText() {
        for type in EventType.allCases {
            #expect(type.text == type.name.description)
            #expect(Array(type.text.utf8).withUnsafeBufferPointer { EventType($0) } == type)
        }
    }

    @Test("The validator accepts every Segment call type and names each problem")
    func validator() throws {
        func check(_ event: String, type: EventType = .track) throws -> String? {
            let parsed = try Self.parse(#"{"batch":[\#(event)]}"#)
            return parsed.withText { text in
                EventValidator.check(parsed.items[0], index: 0, maxEventBytes: 200, defaultType: type, in: text)
            }.rejection?.code
        }
        #expect(try check(#"{"type":"identify","messageId":"m","userId":"u","traits":{"a":1}}"#) == nil)
        #expect(try check(#"{"type":"alias","messageId":"m","userId":"u","previousId":"p"}"#) == nil)
        #expect(try check(#"{"event":"E","messageId":"m","anonymousId":"a"}"#) == nil)
        #expect(try check(#"{"type":"page","messageId":"m","userId":"u","timestamp":"2026-01-01T00:00:00+02:00"}"#) == nil)
        #expect(try check(#"{"type":"track","event":"E","messageId":5,"userId":"u"}"#) == "wrong_type")
        #expect(try check(#"{"type":7,"messageId":"m","userId":"u"}"#) == "wrong_type")
        #expect(try check(#"{"type":"track","event":"E","messageId":"","userId":"u"}"#) == "missing_message_id")
        #expect(try check(#"{"type":"track","event":"E","messageId":"m","userId":"u","context":"x"}"#) == "wrong_type")
        #expect(try check(#"{"type":"track","event":"E","messageId":"m","userId":"","anonymousId":null}"#) == "missing_identity")
        #expect(try check(#"{"type":"track","event":"E","messageId":"m","userId":"u","pad":"\#(String(repeating: "p", count: 200))"}"#) == "event_too_large")
        let longId = try Self.parse(#"{"batch":[{"event":"E","messageId":"\#(String(repeating: "m", count: 300))","userId":"u"}]}"#)
        let verdict = longId.withText { EventValidator.check(longId.items[0], index: 0, maxEventBytes: 2000, in: $0) }
        #expect(verdict.rejection?.code == "message_id_too_long")
    }

    @Test("Fault decisions stack the shares in order")
    func decisionOrder() {
        let plan = FaultPlan(failRate: 0.1, throttleRate: 0.1, hangRate: 0.1, resetRate: 0.1, maxBatchEvents: 100)
        #expect(FaultDecision.decide(plan: plan, eventCount: 1, draw: 0.05) == .fail)
        #expect(FaultDecision.decide(plan: plan, eventCount: 1, draw: 0.15) == .throttle(retryAfterSeconds: 1))
        #expect(FaultDecision.decide(plan: plan, eventCount: 1, draw: 0.25) == .hang(seconds: 30))
        #expect(FaultDecision.decide(plan: plan, eventCount: 1, draw: 0.35) == .reset)
        #expect(FaultDecision.decide(plan: plan, eventCount: 1, draw: 0.45) == .serve)
        #expect(FaultDecision.decide(plan: plan, eventCount: 101, draw: 0.99) == .batchTooLarge(limit: 100))
    }

    @Test("The seeded generator repeats for a seed and spreads its draws")
    func seededGenerator() {
        var first = SeededGenerator(seed: 9)
        var second = SeededGenerator(seed: 9)
        let draws = (0..<1000).map { _ in first.nextUnit() }
        #expect(draws == (0..<1000).map { _ in second.nextUnit() })
        #expect(draws.allSatisfy { $0 >= 0 && $0 < 1 })
        let low = draws.filter { $0 < 0.5 }.count
        #expect((400...600).contains(low))
    }

    @Test("Authorization headers parse or are refused as malformed")
    func authorization() throws {
        #expect(try AuthorizationHeader.parse(nil) == .none)
        #expect(try AuthorizationHeader.parse("Basic YWJjMTIzOg==") == .basic(writeKey: "abc123"))
        #expect(try AuthorizationHeader.parse("basic YWJjMTIz") == .basic(writeKey: "abc123"))
        #expect(try AuthorizationHeader.parse("Bearer t") == .bearer)
        for bad in ["Basic", "Basic !!!", "Basic Og==", "Digest abc", ""] {
            #expect(throws: CollectorError.self, "\(bad)") { try AuthorizationHeader.parse(bad) }
        }
    }
}

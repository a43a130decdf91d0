import Testing

@testable import BeaconSimulation

@Suite struct ScenarioJSONReaderTests {
    @Test func readsEveryKindOfValueWithPositions() throws {
        let json = try ScenarioFixtures.json("{\"a\": [1, -2.5e3, true, false, null],\n  \"b\": {\"c\": \"d\"}}")
        guard case .object(let members) = json.value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["a", "b"])
        #expect((members[0].keyLine, members[0].keyColumn) == (1, 2))
        #expect((members[1].keyLine, members[1].keyColumn) == (2, 3))
        #expect((members[1].value.line, members[1].value.column) == (2, 8))
        guard case .array(let elements) = members[0].value.value else {
            Issue.record("not an array")
            return
        }
        #expect(elements.map(\.value) == [.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null])
        #expect(elements.map(\.column) == [8, 11, 19, 25, 32])
        #expect(members[1].value.member("c")?.value.value == .string("d"))
    }

    @Test(arguments: [
        (#""a\"b\\c\/d""#, "a\"b\\c/d"),
        (#""\b\f\n\r\t""#, "\u{08}\u{0C}\n\r\t"),
        (#""\u0041\u00e9\u20AC""#, "Aé€"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""x\ud83d\ude00y""#, "x😀y"),
        ("\"raw é € 😀\"", "raw é € 😀"),
        (#""""#, ""),
    ])
    func decodesStrings(_ literal: String, _ expected: String) throws {
        #expect(try ScenarioFixtures.json(literal).value == .string(expected))
    }

    @Test(arguments: [
        (#""\uD83D""#, "lone high surrogate \\uD83D (it must be followed by a low surrogate \\uDC00-\\uDFFF)"),
        (#""\uD83Dx""#, "lone high surrogate \\uD83D (it must be followed by a low surrogate \\uDC00-\\uDFFF)"),
        (#""\uD83D\u0041""#, "lone high surrogate \\uD83D (it must be followed by a low surrogate \\uDC00-\\uDFFF)"),
        (#""\uDE00""#, "lone low surrogate \\uDE00 (it must follow a high surrogate \\uD800-\\uDBFF)"),
        (#""\u12G4""#, "\\u must be followed by four hex digits"),
        (#""\x41""#, "invalid escape '\\x'; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"),
        (#""\'""#, "invalid escape '\\''; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"),
    ])
    func rejectsBadEscapesAtTheBackslash(_ literal: String, _ message: String) {
        #expect(throws: ScenarioError.syntax(1, 2, message)) { try ScenarioFixtures.json(literal) }
    }

    @Test func integersKeepTheirExactText() throws {
        let json = try ScenarioFixtures.json("[18446744073709551615, 9007199254740993, 18446744073709551616, -9223372036854775808]")
        guard case .array(let elements) = json.value else {
            Issue.record("not an array")
            return
        }
        let readings = elements.compactMap { element -> ScenarioInteger? in
            guard case .number(let text) = element.value else { return nil }
            return ScenarioInteger(literal: text)
        }
        #expect(readings == [
            .value(negative: false, magnitude: UInt64.max),
            .value(negative: false, magnitude: 9_007_199_254_740_993),
            .tooLarge(negative: false),
            .value(negative: true, magnitude: 9_223_372_036_854_775_808),
        ])
        #expect(ScenarioInteger(literal: "1.0") == .notWhole)
        #expect(ScenarioInteger(literal: "1e3") == .notWhole)
        #expect(ScenarioInteger(literal: "123456789012345678901234567890.5") == .notWhole)
        #expect(ScenarioInteger(literal: "-0") == .value(negative: true, magnitude: 0))
    }

    @Test(arguments: [
        ("[1,]", 1, 3, "trailing comma before ']'"),
        ("{\"a\":1,}", 1, 7, "trailing comma before '}'"),
        ("{\"a\":1,\n  }", 1, 7, "trailing comma before '}'"),
        ("{\"a\":1 \"b\":2}", 1, 8, "unexpected '\"'; expected ',' or '}' in the object started at line 1"),
        ("[1 2]", 1, 4, "unexpected '2'; expected ',' or ']' in the array started at line 1"),
        ("{\"a\" 1}", 1, 6, "unexpected '1'; expected ':' after the key"),
        ("{a:1}", 1, 2, "unexpected 'a'; expected a key in double quotes"),
        ("{'a':1}", 1, 2, "unexpected '''; expected a key in double quotes"),
        ("{\"a\":1} x", 1, 9, "unexpected 'x' after the end of the document"),
        ("{\"a\":1}\n// comment", 2, 1, "unexpected '/' after the end of the document"),
        ("{\"a\":", 1, 6, "unexpected end of file; expected a value"),
        ("{\"a\":1", 1, 7, "unexpected end of file; expected ',' or '}' in the object started at line 1"),
        ("[", 1, 2, "unexpected end of file; expected a value"),
        ("  \"abc", 1, 3, "unterminated string (no closing quote before the end of the file)"),
        ("\"ab\\", 1, 1, "unterminated string (no closing quote before the end of the file)"),
        ("{\"a\":1,\"a\":2}", 1, 8, "duplicate key 'a' (first at line 1, column 2)"),
        ("[NaN]", 1, 2, "JSON has no NaN or Infinity; give a finite number"),
        ("[Infinity]", 1, 2, "JSON has no NaN or Infinity; give a finite number"),
        ("[-Infinity]", 1, 2, "JSON has no NaN or Infinity; give a finite number"),
        ("[1e999]", 1, 2, "number '1e999' is too large to be represented"),
        ("[-1e999]", 1, 2, "number '-1e999' is too large to be represented"),
        ("[-0x1]", 1, 2, "invalid number '-0x1'; JSON numbers are decimal, like 12, -3, 0.5 or 1e3, without leading zeros"),
        ("[01]", 1, 2, "invalid number '01'; JSON numbers are decimal, like 12, -3, 0.5 or 1e3, without leading zeros"),
        ("[1.]", 1, 2, "invalid number '1.'; JSON numbers are decimal, like 12, -3, 0.5 or 1e3, without leading zeros"),
        ("[.5]", 1, 2, "unexpected '.'; expected a value"),
        ("[+1]", 1, 2, "unexpected '+'; expected a value"),
        ("[1e]", 1, 2, "invalid number '1e'; JSON numbers are decimal, like 12, -3, 0.5 or 1e3, without leading zeros"),
        ("[-]", 1, 2, "invalid number '-'; JSON numbers are decimal, like 12, -3, 0.5 or 1e3, without leading zeros"),
        ("[tru]", 1, 2, "unexpected 'tru'; expected a value (strings need double quotes)"),
        ("[True]", 1, 2, "unexpected 'True'; expected a value (strings need double quotes)"),
        ("", 1, 1, "the file is empty; a scenario is a JSON object"),
        ("  \n ", 2, 2, "unexpected end of file; expected a value"),
        ("\"a\tb\"", 1, 3, "control character U+0009 in a string; write it as an escape such as \\n or \\u0009"),
        ("[\"a\nb\"]", 1, 4, "control character U+000A in a string; write it as an escape such as \\n or \\u000A"),
    ])
    func syntaxErrorsNameLineAndColumn(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        #expect(throws: ScenarioError.syntax(line, column, message)) { try ScenarioFixtures.json(text) }
    }

    @Test func columnsCountUnicodeScalarsAndLinesCountCRLF() {
        #expect(throws: ScenarioError.syntax(1, 7, "unexpected 'x'; expected ',' or ']' in the array started at line 1")) {
            try ScenarioFixtures.json("[\"é😀\" x]")
        }
        #expect(throws: ScenarioError.syntax(3, 3, "unexpected 'x'; expected ',' or ']' in the array started at line 1")) {
            try ScenarioFixtures.json("[1,\r\n2\r\n  x]")
        }
        #expect(throws: ScenarioError.syntax(3, 1, "unexpected 'x'; expected a value (strings need double quotes)")) {
            try ScenarioFixtures.json("[1,\r2,\rx]")
        }
    }

    @Test func nestingIsLimitedToSixtyFourLevels() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try ScenarioFixtures.json(deepest) }
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: ScenarioError.syntax(1, 65, "nesting deeper than 64 levels")) { try ScenarioFixtures.json(tooDeep) }
        let objects = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: ScenarioError.syntax(1, 321, "nesting deeper than 64 levels")) { try ScenarioFixtures.json(objects) }
    }
}

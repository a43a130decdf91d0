import Testing

@testable import BeaconSimulation

@Suite struct ScenarioHostileInputTests {
    /// A minimal scenario with `value` as the first step's rate, as bytes.
    static func withRate(_ value: [UInt8]) -> [UInt8] {
        Array(#"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1,"rate":"#.utf8) + value + Array("}]}".utf8)
    }

    @Test func nanAndInfinityLiteralsAreSyntaxErrors() {
        for literal in ["NaN", "Infinity", "-Infinity", "nan"] {
            let error = ScenarioFixtures.error(Self.withRate(Array(literal.utf8)))
            #expect(error == ScenarioError(line: 1, column: 70, field: "", message: "JSON has no NaN or Infinity; give a finite number"))
        }
    }

    @Test(arguments: [
        ("1e300", "found 1e300; expected a number of events per second, 0 to 100000"),
        ("-1", "found -1; expected a number of events per second, 0 to 100000"),
        ("9223372036854775807", "found 9223372036854775807; expected a number of events per second, 0 to 100000"),
        ("\"100\"", "found the string \"100\"; expected a number of events per second, 0 to 100000"),
    ])
    func hostileRates(_ literal: String, _ message: String) {
        let error = ScenarioFixtures.error(Self.withRate(Array(literal.utf8)))
        #expect(error == ScenarioError(line: 1, column: 70, field: "steps[0].rate", message: message))
    }

    @Test(arguments: [
        ("9223372036854775807", "found 9223372036854775807; expected a whole number of events, 0 to 1000000"),
        ("9223372036854775808", "found 9223372036854775808; expected a whole number of events, 0 to 1000000"),
        ("99999999999999999999999", "found 99999999999999999999999; expected a whole number of events, 0 to 1000000"),
        ("-9223372036854775809", "found -9223372036854775809; expected a whole number of events, 0 to 1000000"),
        ("\"1.5\"", "found the string \"1.5\"; expected a whole number of events, 0 to 1000000"),
        ("1.5", "found 1.5; expected a whole number of events, 0 to 1000000"),
        ("1000.0", "found 1000.0; expected a whole number of events, 0 to 1000000"),
    ])
    func hostileBursts(_ literal: String, _ message: String) {
        let error = ScenarioFixtures.error(ScenarioFixtures.Spot.step.document("burst", literal))
        #expect(error?.field == "steps[0].burst")
        #expect(error?.message == message)
    }

    @Test func seedBeyondUInt64IsRejectedExactly() {
        let maximum = ScenarioFixtures.error(ScenarioFixtures.Spot.top.document("seed", "18446744073709551615"))
        #expect(maximum == nil)
        let beyond = ScenarioFixtures.error(ScenarioFixtures.Spot.top.document("seed", "18446744073709551616"))
        #expect(beyond?.field == "seed")
        // 2^64 + 1 rounds to 2^64 as a Double, but is read exactly.
        #expect(ScenarioFixtures.error(ScenarioFixtures.Spot.top.document("seed", "18446744073709551617"))?.field == "seed")
        // 2^53 + 1 is not a Double, but is read exactly.
        #expect((try? ScenarioFixtures.parse(ScenarioFixtures.Spot.top.document("seed", "9007199254740993")))?.seed == 9_007_199_254_740_993)
    }

    @Test(arguments: [
        ([0xFF], "invalid UTF-8 byte 0xFF in a string; the file must be UTF-8"),
        ([0xC0, 0x80], "invalid UTF-8 byte 0xC0 in a string; the file must be UTF-8"),
        ([0xE0, 0x80, 0x80], "invalid UTF-8 byte 0xE0 in a string; the file must be UTF-8"),
        ([0xED, 0xA0, 0x80], "invalid UTF-8 byte 0xED in a string; the file must be UTF-8"),
        ([0xF4, 0x90, 0x80, 0x80], "invalid UTF-8 byte 0xF4 in a string; the file must be UTF-8"),
        ([0xF5, 0x80, 0x80, 0x80], "invalid UTF-8 byte 0xF5 in a string; the file must be UTF-8"),
        ([0x80], "invalid UTF-8 byte 0x80 in a string; the file must be UTF-8"),
        ([0xE2, 0x82], "invalid UTF-8 byte 0xE2 in a string; the file must be UTF-8"),
        ([0x00], "NUL byte in a string"),
    ] as [([UInt8], String)])
    func badBytesInAString(_ bad: [UInt8], _ message: String) {
        let bytes = Array(#"{"name":"ok é"#.utf8) + bad + Array(#"","collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#.utf8)
        #expect(ScenarioFixtures.error(bytes) == ScenarioError(line: 1, column: 14, field: "", message: message))
    }

    @Test func badBytesOutsideStrings() {
        let raw: [UInt8] = Array(#"{"name":"t","#.utf8) + [0xFF] + Array(#""collectors":[]}"#.utf8)
        #expect(ScenarioFixtures.error(raw) == .syntax(1, 13, "unexpected invalid UTF-8 byte 0xFF; expected a key in double quotes"))
        let nul: [UInt8] = Array(#"{"name":"t","#.utf8) + [0x00]
        #expect(ScenarioFixtures.error(nul) == .syntax(1, 13, "unexpected NUL byte; expected a key in double quotes"))
        let nulAfter: [UInt8] = Array(ScenarioFixtures.minimal.utf8) + [0x00]
        #expect(ScenarioFixtures.error(nulAfter) == .syntax(1, 68, "unexpected NUL byte after the end of the document"))
        let utf16: [UInt8] = [0xFE, 0xFF, 0x00, 0x7B, 0x00, 0x7D]
        #expect(ScenarioFixtures.error(utf16) == .syntax(1, 1, "unexpected invalid UTF-8 byte 0xFE; expected a value"))
        let stray: [UInt8] = Array("{\"name\":\"t\", é".utf8)
        #expect(ScenarioFixtures.error(stray) == .syntax(1, 14, "unexpected 'é'; expected a key in double quotes"))
    }

    @Test func escapedNulInANameIsAFieldError() {
        let error = ScenarioFixtures.error(#"{"name":"a\u0000b","collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#)
        #expect(error?.field == "name")
        #expect(error?.message == "found the control character U+0000; expected a name of 1 to 200 characters, no control characters")
    }

    @Test func filesOverOneMebibyteAreRejected() {
        let document = Array(ScenarioFixtures.minimal.utf8)
        let exactly = document + Array(repeating: UInt8(ascii: " "), count: Scenario.maxFileBytes - document.count)
        #expect(exactly.count == 1_048_576)
        #expect(ScenarioFixtures.error(exactly) == nil)
        let over = exactly + [UInt8(ascii: " ")]
        #expect(ScenarioFixtures.error(over) == .syntax(1, 1, "the file is larger than 1 MiB (1048576 bytes), the most a scenario may be"))
        let twoMiB = document + Array(repeating: UInt8(ascii: " "), count: 2 * 1_048_576)
        #expect(ScenarioFixtures.error(twoMiB)?.message.contains("larger than 1 MiB") == true)
    }

    @Test func tenThousandLevelsOfNestingDoNotCrash() {
        let arrays = #"{"name":"t","description":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        // The scenario object is level 1, so the 64th bracket (column 27 + 63) is level 65.
        #expect(ScenarioFixtures.error(arrays) == .syntax(1, 90, "nesting deeper than 64 levels"))
        let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(ScenarioFixtures.error(objects) == .syntax(1, 321, "nesting deeper than 64 levels"))
        let unclosed = String(repeating: "[", count: 10_000)
        #expect(ScenarioFixtures.error(unclosed)?.message == "nesting deeper than 64 levels")
    }

    @Test func emptyAndBlankFiles() {
        #expect(ScenarioFixtures.error([]) == .syntax(1, 1, "the file is empty; a scenario is a JSON object"))
        #expect(ScenarioFixtures.error(" \n\t") == .syntax(2, 2, "unexpected end of file; expected a value"))
    }

    @Test func byteOrderMarkAtTheStartIsSkipped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let scenario = try Scenario.parse(bom + Array(ScenarioFixtures.minimal.utf8))
        #expect(scenario.name == "t")
        // The mark takes no column: a mistake right after it is at column 1.
        #expect(ScenarioFixtures.error(bom + Array("x".utf8)) == .syntax(1, 1, "unexpected 'x'; expected a value (strings need double quotes)"))
        #expect(ScenarioFixtures.error(bom) == .syntax(1, 1, "unexpected end of file; expected a value"))
        // Only one, only at the start.
        #expect(ScenarioFixtures.error(bom + bom + Array("{}".utf8)) == .syntax(1, 1, "unexpected '\u{FEFF}'; expected a value"))
        #expect(ScenarioFixtures.error(Array(" ".utf8) + bom + Array("{}".utf8)) == .syntax(1, 2, "unexpected '\u{FEFF}'; expected a value"))
    }
}

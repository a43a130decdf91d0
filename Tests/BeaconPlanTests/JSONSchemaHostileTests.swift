import BeaconPlan
import BeaconWire
import Foundation
import Testing

/// Schemas and values built to hurt: each is refused with where and why, or checked in
/// bounded time; none crashes or hangs.
@Suite struct JSONSchemaHostileTests {
    static func error(_ schema: JSONValue, _ draft: SchemaDraft = .draft2020_12) -> String? {
        do {
            _ = try JSONSchema(schema, draft: draft)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func nestingPastTheLimitIsRefused() {
        var deep: JSONValue = ["type": "string"]
        for _ in 0..<JSONSchema.maxDepth { deep = ["items": deep] }
        #expect(Self.error(deep) == nil, "at the limit")
        deep = ["items": deep]
        let message = Self.error(deep)
        #expect(message?.hasSuffix("subschemas nest deeper than 64") == true, "\(message ?? "accepted")")
        // Far past it: refused as fast, not a stack overflow.
        for _ in 0..<10_000 { deep = ["not": deep] }
        #expect(Self.error(deep) != nil)
    }

    static let cycles: [(schema: JSONValue, words: String)] = [
        (["$ref": "#"], "at /$ref"),
        (["$defs": ["a": ["$ref": "#/$defs/b"], "b": ["allOf": [["$ref": "#/$defs/a"]]]], "$ref": "#/$defs/a"], "a cycle of $ref"),
        (["$defs": ["a": ["not": ["$ref": "#/$defs/a"]]], "$ref": "#/$defs/a"], "a cycle of $ref"),
    ]

    @Test func aCycleOfReferencesOnOneValueIsRefused() {
        for (schema, words) in Self.cycles {
            let message = Self.error(schema)
            #expect(message?.contains(words) == true, "\(message ?? "accepted")")
        }
    }

    @Test func aRecursiveSchemaThatDescendsIsAccepted() throws {
        let tree: JSONValue = [
            "$defs": ["node": ["type": "object", "properties": ["children": ["type": "array", "items": ["$ref": "#/$defs/node"]]]]],
            "$ref": "#/$defs/node",
        ]
        let schema = try JSONSchema(tree, draft: .draft2020_12)
        var value: JSONValue = ["children": []]
        for _ in 0..<50 { value = ["children": [value]] }
        #expect(schema.validates(value))
        #expect(!schema.validates(["children": [["children": "no"]]]))
    }

    @Test(arguments: ["(a+)+$", "^(a*)*b", #"(\w+\s?)*$"#, "((ab)*)+", "(a{1,5})*"])
    func aPatternThatBacktracksIsRefused(pattern: String) {
        let message = Self.error(["pattern": .string(pattern)])
        #expect(message?.contains("could take exponential time") == true, "\(pattern): \(message ?? "accepted")")
    }

    @Test(arguments: ["^[a-z]+$", "^(foo|bar)+$", #"^\d{3}-\d{4}$"#, "^(ab)+$", #"[(+*)]+"#, #"\(a+\)+"#])
    func anOrdinaryPatternIsKept(pattern: String) {
        #expect(Self.error(["pattern": .string(pattern)]) == nil, "\(pattern)")
    }

    @Test func anInvalidPatternIsRefusedNamingIt() {
        let message = Self.error(["patternProperties": ["^(abc": ["type": "string"]]])
        #expect(message == #"at /patternProperties/^(abc: the pattern "^(abc" is not a regular expression"#, "\(message ?? "accepted")")
    }

    @Test func extremeNumbersAreBounded() throws {
        let tiny = try JSONSchema(["multipleOf": 1e-300], draft: .draft7)
        #expect(!tiny.validates(1e308), "a quotient past Double's range is not whole")
        #expect(tiny.validates(0))
        let big = try JSONSchema(["multipleOf": 0.123456789], draft: .draft7)
        #expect(!big.validates(1e308))
        let integers = try JSONSchema(["multipleOf": 3], draft: .draft7)
        #expect(integers.validates(.int(Int.max - 1)) && !integers.validates(.int(Int.max)) && integers.validates(.int(Int.min + 2)))
        #expect(Self.error(["multipleOf": 0]) != nil && Self.error(["multipleOf": -2]) != nil)
        #expect(Self.error(["minimum": .double(.nan)]) != nil && Self.error(["maximum": .double(.infinity)]) != nil)
        #expect(Self.error(["minLength": -1]) != nil && Self.error(["maxItems": 1.5]) != nil)
        let bounds = try JSONSchema(["minimum": -1e300, "maximum": 1e300], draft: .draft7)
        #expect(bounds.validates(.int(Int.max)) && bounds.validates(.int(Int.min)) && !bounds.validates(.double(.infinity)))
        #expect(!bounds.validates(.double(.nan)), "NaN is no number JSON carries: it fails every bound")
    }

    @Test func namesWithNULsAndOddCharactersAreOrdinaryStrings() throws {
        let schema = try JSONSchema(["required": ["a\u{0}b", "é"], "properties": ["a\u{0}b": ["const": "e\u{301}"]]], draft: .draft2020_12)
        #expect(schema.validates(["a\u{0}b": "e\u{301}", "é": 1]))
        #expect(!schema.validates(["a\u{0}b": "é", "é": 1]), "const compares code points: é is not e and a combining accent")
        #expect(schema.violations(of: ["é": 1]).first?.message == #"missing "a\#u{0}b""#)
    }

    @Test func uniqueItemsOverAHugeArrayIsLinear() throws {
        let schema = try JSONSchema(["uniqueItems": true], draft: .draft2020_12)
        var elements: [JSONValue] = (0..<200_000).map { .int($0) }
        #expect(schema.validates(.array(elements)))
        elements.append(.double(199_999.0))  // equal to the last one by value
        #expect(schema.violations(of: .array(elements)).first?.message == "elements 199999 and 200000 are equal")
        // Objects equal whatever their members' order; strings by code point.
        #expect(!schema.validates([["a": 1, "b": [true]], ["b": [true], "a": 1.0]]))
        #expect(schema.validates(["é", "e\u{301}"]))
    }

    @Test func aLongInputAgainstAPatternEndsInBoundedTime() throws {
        let schema = try JSONSchema(["pattern": "^[a-z]*$"], draft: .draft7)
        let text = String(repeating: "a", count: 1_000_000) + "!"
        let clock = ContinuousClock()
        let start = clock.now
        #expect(!schema.validates(.string(text)))
        // Bounded, not timed: a linear scan of a million characters, far under a minute.
        #expect(clock.now - start < .seconds(60))
    }
}

/// One JSON value of a scenario file, with the 1-based line and column where it starts.
///
/// Numbers keep their literal text so that integers are read exactly (a `Double` loses
/// integers past 2^53); object members keep document order and the position of each key.
struct ScenarioJSON: Sendable, Hashable {
    /// A JSON value.
    enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        /// The number's literal text, already checked against the RFC 8259 grammar and finite.
        case number(String)
        case string(String)
        case array([ScenarioJSON])
        case object([Member])
    }

    /// One `"key": value` pair of an object.
    struct Member: Sendable, Hashable {
        var key: String
        var keyLine: Int
        var keyColumn: Int
        var value: ScenarioJSON
    }

    var value: Value
    var line: Int
    var column: Int

    /// The member with this key, when this is an object that has one.
    func member(_ key: String) -> Member? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }
    }

    /// A noun phrase for messages: "a string", "an array", ...
    var kindDescription: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// The exact reading of an integer literal.
enum ScenarioInteger: Equatable {
    /// A whole number that fits in 64 bits of magnitude.
    case value(negative: Bool, magnitude: UInt64)
    /// A whole number whose magnitude exceeds `UInt64.max`.
    case tooLarge(negative: Bool)
    /// The literal has a fraction or an exponent.
    case notWhole

    /// Reads a number literal (already valid JSON) exactly, from its digits.
    init(literal text: String) {
        var utf8 = Substring(text).utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        var magnitude: UInt64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                self = .notWhole
                return
            }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 {
                self = utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    ? .tooLarge(negative: negative) : .notWhole
                return
            }
            magnitude = sum
        }
        self = .value(negative: negative, magnitude: magnitude)
    }
}

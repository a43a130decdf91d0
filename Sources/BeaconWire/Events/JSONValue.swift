/// A JSON value with a static type: what event properties and context are made of.
///
/// Beacon never carries `[String: Any]`. Build values with literals:
///
/// ```swift
/// let properties: [String: JSONValue] = ["plan": "pro", "seats": 3, "trial": false]
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The dictionary inside an `.object`, or `nil`.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements inside an `.array`, or `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The string inside a `.string`, or `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number inside an `.int` or a `.double`, as a `Double`, or `nil`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The number inside an `.int` (or an integral `.double`), or `nil`.
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where abs(value) < 9.0e15: return Int(exactly: value)
        default: return nil
        }
    }

    /// The name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Looks up a key when this is an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: Codable {
    /// The description of the error for a value the decoder read but none of the cases
    /// holds: a number past a Double's range, or a string Foundation's decoder refuses
    /// only once asked for it (a raw tab or control character in it).
    public static let notAValue =
        "it holds a number beyond ±1.8e308, or a string with a raw tab or control character (escape it: \\t, \\u0001)"

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each `try?` below probes one JSON type; a failure only means "not this type", and
        // the last branch reports a value that is none of them. Each probe matches one kind
        // of JSON value only (a string never decodes as a number or a Bool, nor the reverse),
        // so their order changes no result, only the cost: a failed probe throws an error
        // that carries its coding path. Strings and objects, most of an event, come first;
        // Int stays before Double, so that 3 is an int.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: JSONValue.notAValue)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

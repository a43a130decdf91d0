import BeaconWire
import Foundation

/// One event read from JSON input (NDJSON lines for `beacon track --stdin`), with a
/// precise error for each way the input can be wrong.
struct TrackInput {
    var name: String
    var properties: [String: JSONValue] = [:]
    var context: [String: JSONValue]?
    var userId: String?
    var anonymousId: String?
    var messageId: String?
    var timestamp: Timestamp?

    init(json bytes: [UInt8]) throws(TrackingError) {
        if let offset = TrackInput.firstInvalidUTF8(bytes) { throw .invalidUTF8(offset: offset) }
        // JSON has no place for a raw control character but as whitespace between tokens
        // (tab, line feed, carriage return); the decoder would not say where it is.
        if let offset = bytes.firstIndex(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            let digits = String(bytes[offset], radix: 16, uppercase: true)
            let hex = digits.count == 1 ? "0" + digits : digits
            throw .invalidJSON(
                reason: "a raw control character (0x\(hex)) at byte \(offset + 1): escape it in a string (\\u00\(hex)) or remove it")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .invalidJSON(reason: TrackInput.describe(error))
        } catch {
            throw .invalidJSON(reason: "\(error)")
        }
        guard case .object(let object) = value else {
            throw .wrongType(field: "the event", expected: "a JSON object", found: value.typeName)
        }
        switch object["event"] ?? object["name"] {
        case .string(let name): self.name = name
        case nil: throw .missingField(field: "event", example: #"{"event": "Signed Up"}"#)
        case let other?: throw .wrongType(field: "event", expected: "a string", found: other.typeName)
        }
        switch object["properties"] {
        case .object(let properties)?: self.properties = properties
        case nil, .null?: break
        case let other?: throw .propertiesNotObject(field: "properties", found: other.typeName)
        }
        switch object["context"] {
        case .object(let context)?: self.context = context
        case nil, .null?: break
        case let other?: throw .propertiesNotObject(field: "context", found: other.typeName)
        }
        userId = try TrackInput.optionalString(object, "userId")
        anonymousId = try TrackInput.optionalString(object, "anonymousId")
        messageId = try TrackInput.optionalString(object, "messageId")
        if messageId?.isEmpty == true { throw .invalidIdentity(field: "messageId", reason: "is empty: leave it out instead") }
        if let messageId, let offset = messageId.utf8.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) {
            let position = messageId.utf8.distance(from: messageId.utf8.startIndex, to: offset)
            throw .invalidIdentity(
                field: "messageId",
                reason: "holds a control character at byte \(position): ids are compared byte for byte, so remove it")
        }
        if let text = try TrackInput.optionalString(object, "timestamp") {
            guard let timestamp = Timestamp(iso8601: text) else {
                throw .wrongType(field: "timestamp", expected: "an ISO-8601 date-time", found: "\"\(text)\"")
            }
            self.timestamp = timestamp
        }
    }

    private static func optionalString(_ object: [String: JSONValue], _ key: String) throws(TrackingError) -> String? {
        switch object[key] {
        case .string(let value)?: return value
        case nil, .null?: return nil
        case let other?: throw .wrongType(field: key, expected: "a string", found: other.typeName)
        }
    }

    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error(let length): _ = length; return offset
            }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context)
        where context.underlyingError == nil && context.codingPath.isEmpty && context.debugDescription != JSONValue.notAValue:
            // Foundation's "The given data was not valid JSON." and nothing more.
            return "a syntax error, or arrays and objects nested past 512 levels"
        case .dataCorrupted(let context):
            return (context.underlyingError.map { "\($0)" } ?? context.debugDescription)
        default:
            return "\(error)"
        }
    }
}

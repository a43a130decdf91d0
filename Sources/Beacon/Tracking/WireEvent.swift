import BeaconWire
import Foundation

/// An event that is already in the Segment wire format, written by another client (a
/// Segment library in another language, through `beacon agent`): queued as its own JSON
/// under its own `messageId`, so the collector later sees exactly what the client sent.
///
/// The checks are the collector's, so an event accepted here is not refused there for
/// its shape: a JSON object in UTF-8 of at most ``EventValidator/maxEventBytes``, a
/// `messageId` string (1 to 256 bytes, no control character), a known `type`, an `event`
/// name for `track`, a `userId` or `anonymousId`, `properties`, `traits`, `context` and
/// `integrations` objects when present, and ISO-8601 times.
///
/// ```swift
/// let event = try WireEvent(json: Array(#"{"type":"track","event":"Signed Up","messageId":"m-1","userId":"u-42"}"#.utf8))
/// try await engine.tracker.enqueue(event).committed()
/// ```
public struct WireEvent: Sendable, Hashable {
    /// The Segment call types.
    public static let types: Set<String> = ["track", "identify", "page", "screen", "group", "alias"]
    /// The longest `messageId`, in bytes (the collector's limit).
    public static let maxMessageIdBytes = 256

    /// The event's `messageId`, as the client sent it.
    public let messageId: String
    /// Its Segment call type (`track`, `identify`, ...).
    public let type: String
    /// Its name: `event` for `track`, `name` for `page` and `screen`, else `nil`.
    public let name: String?
    /// Its `timestamp` (or `originalTimestamp`), when it has one.
    public let timestamp: Timestamp?
    /// The event's JSON: the client's bytes, or (when `type` was missing) the event
    /// re-encoded with `type` set.
    public let json: [UInt8]

    /// Checks `json` and reads the fields the queue keeps.
    ///
    /// - Parameters:
    ///   - defaultType: the type of an event that names none (a `/v1/identify` call's
    ///     body may leave it out); it is then written into the JSON.
    ///   - maxEventBytes: the largest event accepted, in bytes.
    /// - Throws: ``TrackingError`` naming the first problem found.
    public init(json bytes: [UInt8], defaultType: String = "track", maxEventBytes: Int = WireLimits.maxEventBytes) throws(TrackingError) {
        guard bytes.count <= maxEventBytes else { throw .eventTooLarge(bytes: bytes.count, limit: maxEventBytes) }
        if let offset = TrackInput.firstInvalidUTF8(bytes) { throw .invalidUTF8(offset: offset) }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw .invalidJSON(reason: "the event could not be read as JSON (\(error))")
        }
        guard case .object(var object) = value else {
            throw .wrongType(field: "the event", expected: "a JSON object", found: value.typeName)
        }
        let messageId = try Self.messageId(in: object)
        let type: String
        var rewrite = false
        switch object["type"] {
        case .string(let text)?:
            guard Self.types.contains(text) else {
                throw .wrongType(field: "type", expected: "one of track, identify, page, screen, group, alias", found: "'\(text)'")
            }
            type = text
        case nil, .null?:
            guard Self.types.contains(defaultType) else {
                throw .wrongType(field: "type", expected: "one of track, identify, page, screen, group, alias", found: "'\(defaultType)'")
            }
            type = defaultType
            object["type"] = .string(type)
            rewrite = true
        case let other?:
            throw .wrongType(field: "type", expected: "a string", found: other.typeName)
        }
        let event = try Self.optionalString(object, "event")
        let pageName = try Self.optionalString(object, "name")
        if type == "track", event?.isEmpty ?? true {
            throw .missingField(field: "event", example: #"{"type": "track", "event": "Signed Up"}"#)
        }
        guard Self.hasIdentity(object["userId"]) || Self.hasIdentity(object["anonymousId"]) else {
            throw .missingField(field: "userId or anonymousId", example: #"{"userId": "u-42"}"#)
        }
        for key in ["userId", "anonymousId"] {
            switch object[key] {
            case nil, .null?, .string?, .int?, .double?: break
            case let other?: throw .wrongType(field: key, expected: "a string", found: other.typeName)
            }
        }
        for key in ["properties", "traits", "context", "integrations"] {
            switch object[key] {
            case nil, .null?, .object?: break
            case let other?: throw .propertiesNotObject(field: key, found: other.typeName)
            }
        }
        var timestamp: Timestamp?
        for key in ["timestamp", "originalTimestamp", "sentAt"] {
            if case .int(let milliseconds)? = object[key] {
                // Whole milliseconds since 1970, as some Segment clients send (FindHotel's):
                // the collector takes the same range.
                guard (0...253_402_300_799_999).contains(milliseconds) else {
                    throw .wrongType(field: key, expected: "an ISO-8601 date-time or milliseconds since 1970 up to 9999", found: "\(milliseconds)")
                }
                guard key != "sentAt", timestamp == nil else { continue }
                timestamp = Timestamp(millisecondsSince1970: Int64(milliseconds))  // checked: an Int in 0...253_402_300_799_999
                continue
            }
            guard let text = try Self.optionalString(object, key) else { continue }
            guard let time = Timestamp(iso8601: text) else {
                throw .wrongType(field: key, expected: "an ISO-8601 date-time", found: "\"\(text)\"")
            }
            if key != "sentAt", timestamp == nil { timestamp = time }
        }
        self.messageId = messageId
        self.type = type
        self.name = type == "track" ? event : (type == "page" || type == "screen" ? pageName : nil)
        self.timestamp = timestamp
        if rewrite {
            var writer = JSONWriter(capacity: bytes.count + 20)
            writer.write(JSONValue.object(object))
            guard writer.bytes.count <= maxEventBytes else {
                throw .eventTooLarge(bytes: writer.bytes.count, limit: maxEventBytes)
            }
            self.json = writer.bytes
        } else {
            self.json = bytes
        }
    }

    /// The fields as they are (the checked path, ``init(checkedJSON:messageId:type:namesItsType:name:timestamp:maxEventBytes:)``).
    init(messageId: String, type: String, name: String?, timestamp: Timestamp?, json: [UInt8]) {
        self.messageId = messageId
        self.type = type
        self.name = name
        self.timestamp = timestamp
        self.json = json
    }

    private static func messageId(in object: [String: JSONValue]) throws(TrackingError) -> String {
        guard let value = object["messageId"], value != .null else {
            throw .missingField(field: "messageId", example: #"{"messageId": "0190f5c2-…"}"#)
        }
        guard case .string(let messageId) = value else {
            throw .wrongType(field: "messageId", expected: "a string", found: value.typeName)
        }
        if messageId.isEmpty { throw .invalidIdentity(field: "messageId", reason: "is empty: give every event a unique id") }
        if messageId.utf8.count > maxMessageIdBytes {
            throw .invalidIdentity(field: "messageId", reason: "is longer than \(maxMessageIdBytes) bytes: use a UUID")
        }
        if let offset = messageId.utf8.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) {
            let position = messageId.utf8.distance(from: messageId.utf8.startIndex, to: offset)
            throw .invalidIdentity(
                field: "messageId",
                reason: "holds a control character at byte \(position): ids are compared byte for byte, so remove it")
        }
        return messageId
    }

    private static func optionalString(_ object: [String: JSONValue], _ key: String) throws(TrackingError) -> String? {
        switch object[key] {
        case .string(let value)?: return value
        case nil, .null?: return nil
        case let other?: throw .wrongType(field: key, expected: "a string", found: other.typeName)
        }
    }

    /// A `userId` or `anonymousId` that counts: a non-empty string, or a number.
    private static func hasIdentity(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let text)?: return !text.isEmpty
        case .int?, .double?: return true
        default: return false
        }
    }
}

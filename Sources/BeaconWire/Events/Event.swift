/// One event in the Segment-compatible wire format.
///
/// Beacon's engine produces `track` events; the collector also accepts the other types
/// real clients send (`identify`, `page`, `screen`, `group`, `alias`).
///
/// ```swift
/// let event = Event(name: "Signed Up", properties: ["plan": "pro"], userId: "u-42")
/// let json = String(decoding: event.jsonBytes, as: UTF8.self)
/// ```
public struct Event: Sendable, Hashable {
    /// The Segment call type: `"track"` for Beacon's own events.
    public var type: String
    /// The event name (`event` on the wire for `track`, `name` for `page` and `screen`).
    public var name: String?
    /// Free-form properties; always an object.
    public var properties: [String: JSONValue]
    /// A unique id (a UUIDv7 for Beacon's events); the collector stores each once.
    public var messageId: String
    /// When the event happened.
    public var timestamp: Timestamp?
    /// The known user, if any.
    public var userId: String?
    /// An anonymous id for users not yet known.
    public var anonymousId: String?
    /// Context fields (library, app, device, session...).
    public var context: [String: JSONValue]?
    /// Traits, for `identify` and `group` calls.
    public var traits: [String: JSONValue]?

    public init(
        type: String = "track",
        name: String?,
        properties: [String: JSONValue] = [:],
        messageId: String = UUIDv7Generator.shared.next(),
        timestamp: Timestamp? = .now(),
        userId: String? = nil,
        anonymousId: String? = nil,
        context: [String: JSONValue]? = nil,
        traits: [String: JSONValue]? = nil
    ) {
        self.type = type
        self.name = name
        self.properties = properties
        self.messageId = messageId
        self.timestamp = timestamp
        self.userId = userId
        self.anonymousId = anonymousId
        self.context = context
        self.traits = traits
    }

    /// The key the name travels under for this event's type.
    var nameKey: String { type == "track" ? "event" : "name" }

    /// Compact JSON of this event, as it travels inside a batch (keys in a fixed order).
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        write(to: &writer)
        return writer.bytes
    }

    /// Compact JSON of this event whose `context` is written as `encodedContext`: the
    /// JSON of ``context`` encoded once ahead (a tracker's fixed context), which saves
    /// sorting and escaping it for every event. The bytes are those of ``jsonBytes``.
    public func jsonBytes(encodedContext: [UInt8]) -> [UInt8] {
        jsonBytes(encodedContext: encodedContext, capacity: 512)
    }

    /// ``jsonBytes(encodedContext:)`` into a buffer of `capacity` bytes at first (it grows
    /// if the event needs more): a tracker that passes the size of its last event keeps
    /// each queued payload about as small as its JSON, not rounded up to a fixed size.
    public func jsonBytes(encodedContext: [UInt8]?, capacity: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: max(64, capacity))
        write(to: &writer, encodedContext: encodedContext)
        return writer.bytes
    }

    /// Writes this event as a JSON object.
    public func write(to writer: inout JSONWriter) {
        write(to: &writer, encodedContext: nil)
    }

    private func write(to writer: inout JSONWriter, encodedContext: [UInt8]?) {
        writer.writeRaw(#"{"type":"#)
        writer.write(type)
        if let name {
            writer.writeByte(UInt8(ascii: ","))
            writer.write(nameKey)
            writer.writeByte(UInt8(ascii: ":"))
            writer.write(name)
        }
        writer.writeRaw(#","properties":"#)
        writer.write(properties)
        writer.writeRaw(#","messageId":"#)
        writer.write(messageId)
        if let timestamp {
            writer.writeRaw(#","timestamp":""#)
            writer.writeRaw(timestamp.iso8601.utf8)
            writer.writeByte(UInt8(ascii: "\""))
        }
        if let userId {
            writer.writeRaw(#","userId":"#)
            writer.write(userId)
        }
        if let anonymousId {
            writer.writeRaw(#","anonymousId":"#)
            writer.write(anonymousId)
        }
        if let encodedContext {
            writer.writeRaw(#","context":"#)
            writer.writeRaw(encodedContext)
        } else if let context {
            writer.writeRaw(#","context":"#)
            writer.write(context)
        }
        if let traits {
            writer.writeRaw(#","traits":"#)
            writer.write(traits)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }
}

extension Event: Codable {
    enum CodingKeys: String, CodingKey {
        case type, event, name, properties, messageId, timestamp, userId, anonymousId, context, traits
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "track"
        name = try container.decodeIfPresent(String.self, forKey: type == "track" ? .event : .name)
        properties = try container.decodeIfPresent([String: JSONValue].self, forKey: .properties) ?? [:]
        messageId = try container.decode(String.self, forKey: .messageId)
        timestamp = try container.decodeIfPresent(Timestamp.self, forKey: .timestamp)
        userId = try container.decodeIfPresent(String.self, forKey: .userId)
        anonymousId = try container.decodeIfPresent(String.self, forKey: .anonymousId)
        context = try container.decodeIfPresent([String: JSONValue].self, forKey: .context)
        traits = try container.decodeIfPresent([String: JSONValue].self, forKey: .traits)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(name, forKey: type == "track" ? .event : .name)
        try container.encode(properties, forKey: .properties)
        try container.encode(messageId, forKey: .messageId)
        try container.encodeIfPresent(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(userId, forKey: .userId)
        try container.encodeIfPresent(anonymousId, forKey: .anonymousId)
        try container.encodeIfPresent(context, forKey: .context)
        try container.encodeIfPresent(traits, forKey: .traits)
    }
}

import BeaconWire

/// One event of an ``AcceptedBatch``: the fields a store indexes, and the event's JSON
/// exactly as the client sent it (after decompression). Every event here passed the
/// collector's checks: its `messageId` is a non-empty string without control characters,
/// and the JSON is a valid UTF-8 object.
public struct AcceptedEvent: Sendable, Hashable {
    /// The event's `messageId`.
    public var messageId: String
    /// The Segment call type (`track`, `identify`, ...): the event's own, or the route's
    /// default when it names none.
    public var type: String
    /// Whether the event's JSON names its type (a `type` string); when not, ``type`` is
    /// the route's default and the JSON has none.
    public var namesItsType: Bool
    /// The event name (`event` for track, `name` for the others), if any.
    public var name: String?
    /// The user id, if any.
    public var userId: String?
    /// The anonymous id, if any.
    public var anonymousId: String?
    /// The `timestamp` (or `originalTimestamp`) as sent, if any.
    public var timestamp: String?
    /// The event's JSON, byte for byte.
    public var json: [UInt8]
    /// ``timestamp`` as the collector's checks read it: `nil` when there is none, or for
    /// an event made without the checks.
    public var time: Timestamp?

    /// Creates an event.
    public init(
        messageId: String, type: String, name: String?, userId: String?, anonymousId: String?, timestamp: String?,
        json: [UInt8], namesItsType: Bool = true, time: Timestamp? = nil
    ) {
        self.messageId = messageId
        self.type = type
        self.namesItsType = namesItsType
        self.name = name
        self.userId = userId
        self.anonymousId = anonymousId
        self.timestamp = timestamp
        self.json = json
        self.time = time
    }
}

/// One event as the collector stored it.
public struct StoredEvent: Sendable, Hashable, Codable {
    /// The event's `messageId` (the primary key: each is stored once).
    public var messageId: String
    /// The Segment call type (`track`, `identify`, ...).
    public var type: String
    /// The event name (`event` for track, `name` for page and screen), if any.
    public var name: String?
    /// The user id, if any.
    public var userId: String?
    /// The anonymous id, if any.
    public var anonymousId: String?
    /// The event's `timestamp` (or `originalTimestamp`) as sent, if any.
    public var timestamp: String?
    /// When the collector first received it, in milliseconds since 1970.
    public var receivedAtMilliseconds: Int64
    /// The event's JSON exactly as the client sent it (after decompression).
    public var json: String

    /// Creates a stored event.
    public init(
        messageId: String, type: String, name: String?, userId: String?, anonymousId: String?,
        timestamp: String?, receivedAtMilliseconds: Int64, json: String
    ) {
        self.messageId = messageId
        self.type = type
        self.name = name
        self.userId = userId
        self.anonymousId = anonymousId
        self.timestamp = timestamp
        self.receivedAtMilliseconds = receivedAtMilliseconds
        self.json = json
    }
}

import BeaconWire

/// An event validated and encoded by `track`, waiting for its commit.
public struct PendingEvent: Sendable, Hashable {
    public var messageId: String
    public var name: String
    /// The event's JSON, as it will go on the wire.
    public var payload: [UInt8]
    /// When it was tracked.
    public var createdAt: Timestamp

    public init(messageId: String, name: String, payload: [UInt8], createdAt: Timestamp) {
        self.messageId = messageId
        self.name = name
        self.payload = payload
        self.createdAt = createdAt
    }
}

extension PendingEvent {
    /// About the bytes this event holds while it waits in memory: its JSON, id and name,
    /// and a fixed 128 for the value itself and the headers of its three heap buffers.
    var memoryCost: Int { payload.count + messageId.utf8.count + name.utf8.count + 128 }
}

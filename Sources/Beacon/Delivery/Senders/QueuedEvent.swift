import BeaconWire

/// One stored event: its place in the queue and its JSON.
public struct QueuedEvent: Sendable, Hashable {
    /// Its position in the queue (increasing in insertion order).
    public var sequence: Int64
    /// The event's `messageId`.
    public var messageId: String
    /// The event's name.
    public var name: String
    /// The event as a JSON object, exactly as it goes on the wire.
    public var payload: [UInt8]

    public init(sequence: Int64, messageId: String, name: String, payload: [UInt8]) {
        self.sequence = sequence
        self.messageId = messageId
        self.name = name
        self.payload = payload
    }
}

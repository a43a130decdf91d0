import BeaconWire

/// One stored event: its place in the queue and its JSON.
///
/// The events of a batch read from the queue share one buffer: each holds a slice of it
/// (``payloadBytes``), so a 500-event batch costs one allocation for its JSON instead of
/// 500, and its body is a concatenation of slices. ``payload`` copies the event's bytes
/// out when they are a slice of a larger buffer.
public struct QueuedEvent: Sendable, Hashable {
    /// Its position in the queue (increasing in insertion order).
    public var sequence: Int64
    /// The event's `messageId`.
    public var messageId: String
    /// The event's name.
    public var name: String
    /// The event as a JSON object, exactly as it goes on the wire (a slice of its
    /// batch's buffer when read from the queue).
    public var payloadBytes: ArraySlice<UInt8>

    /// The event as a JSON object, exactly as it goes on the wire.
    public var payload: [UInt8] {
        get { Array(payloadBytes) }
        set { payloadBytes = newValue[...] }
    }

    /// The size of ``payload`` in bytes, without copying it.
    public var payloadCount: Int { payloadBytes.count }

    public init(sequence: Int64, messageId: String, name: String, payload: [UInt8]) {
        self.init(sequence: sequence, messageId: messageId, name: name, payloadBytes: payload[...])
    }

    public init(sequence: Int64, messageId: String, name: String, payloadBytes: ArraySlice<UInt8>) {
        self.sequence = sequence
        self.messageId = messageId
        self.name = name
        self.payloadBytes = payloadBytes
    }
}

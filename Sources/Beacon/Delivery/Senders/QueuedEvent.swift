import BeaconWire

/// One stored event: its place in the queue and its JSON.
///
/// The events of a batch read from the queue share one buffer: each holds slices of it
/// (``payloadBytes``, ``messageIdBytes``, ``nameBytes``), so a 500-event batch costs one
/// allocation instead of 1,500, and its body is a concatenation of slices. ``payload``
/// copies the event's bytes out; ``messageId`` and ``name`` make their strings when asked,
/// which a delivery that succeeds never does.
public struct QueuedEvent: Sendable, Hashable {
    /// Its position in the queue (increasing in insertion order).
    public var sequence: Int64
    /// The event's `messageId` as UTF-8, byte for byte as stored (a collector dedups by
    /// these bytes).
    public var messageIdBytes: ArraySlice<UInt8>
    /// The event's name as UTF-8.
    public var nameBytes: ArraySlice<UInt8>
    /// The event as a JSON object, exactly as it goes on the wire (a slice of its
    /// batch's buffer when read from the queue).
    public var payloadBytes: ArraySlice<UInt8>

    /// The event's `messageId`.
    public var messageId: String {
        get { String(decoding: messageIdBytes, as: UTF8.self) }
        set { messageIdBytes = Array(newValue.utf8)[...] }
    }

    /// The event's name.
    public var name: String {
        get { String(decoding: nameBytes, as: UTF8.self) }
        set { nameBytes = Array(newValue.utf8)[...] }
    }

    /// The event as a JSON object, exactly as it goes on the wire.
    public var payload: [UInt8] {
        get { Array(payloadBytes) }
        set { payloadBytes = newValue[...] }
    }

    /// The size of ``payload`` in bytes, without copying it.
    public var payloadCount: Int { payloadBytes.count }

    public init(sequence: Int64, messageId: String, name: String, payload: [UInt8]) {
        self.init(
            sequence: sequence, messageIdBytes: Array(messageId.utf8)[...], nameBytes: Array(name.utf8)[...], payloadBytes: payload[...])
    }

    public init(sequence: Int64, messageId: String, name: String, payloadBytes: ArraySlice<UInt8>) {
        self.init(sequence: sequence, messageIdBytes: Array(messageId.utf8)[...], nameBytes: Array(name.utf8)[...], payloadBytes: payloadBytes)
    }

    public init(sequence: Int64, messageIdBytes: ArraySlice<UInt8>, nameBytes: ArraySlice<UInt8>, payloadBytes: ArraySlice<UInt8>) {
        self.sequence = sequence
        self.messageIdBytes = messageIdBytes
        self.nameBytes = nameBytes
        self.payloadBytes = payloadBytes
    }
}

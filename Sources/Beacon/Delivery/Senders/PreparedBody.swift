import BeaconWire

/// A request body encoded ahead of time by a sender, for that sender.
public struct PreparedBody: Sendable, Hashable {
    /// The bytes to send.
    public var bytes: [UInt8]
    /// Whether they are gzipped.
    public var gzipped: Bool

    public init(bytes: [UInt8], gzipped: Bool) {
        self.bytes = bytes
        self.gzipped = gzipped
    }
}

import BeaconWire

/// One event that a destination refused, and why.
public struct EventRejection: Sendable, Hashable {
    /// The event's `messageId`.
    public var messageId: String
    /// The destination's reason, as a user would read it.
    public var reason: String

    public init(messageId: String, reason: String) {
        self.messageId = messageId
        self.reason = reason
    }
}

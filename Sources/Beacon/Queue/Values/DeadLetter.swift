import BeaconWire

/// An event that will never be delivered, kept with the reason.
public struct DeadLetter: Sendable, Hashable {
    public var event: QueuedEvent
    /// Why, as the destination said it.
    public var reason: String
    /// Which destination refused it.
    public var destination: String
    /// The HTTP status, if any.
    public var status: Int?
    /// When it was dead-lettered.
    public var failedAt: Timestamp

    public init(event: QueuedEvent, reason: String, destination: String, status: Int?, failedAt: Timestamp) {
        self.event = event
        self.reason = reason
        self.destination = destination
        self.status = status
        self.failedAt = failedAt
    }
}

/// An event refused for good, with the reason.
public struct RejectedEvent: Sendable, Hashable {
    public var event: QueuedEvent
    public var reason: String
    public init(event: QueuedEvent, reason: String) {
        self.event = event
        self.reason = reason
    }
}

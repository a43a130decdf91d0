import BeaconWire

/// One time a destination refused a dead letter's event for good. A letter retried and
/// refused again keeps its id and gains an attempt, so its history reads in order.
public struct DeadLetterAttempt: Sendable, Hashable {
    /// 1 for the first refusal, 2 after one retry, …
    public var number: Int
    /// Why, as the destination said it (with the messageId and the collector's code).
    public var reason: String
    /// The HTTP status, if any.
    public var status: Int?
    /// When it was refused.
    public var failedAt: Timestamp

    public init(number: Int, reason: String, status: Int?, failedAt: Timestamp) {
        self.number = number
        self.reason = reason
        self.status = status
        self.failedAt = failedAt
    }
}

/// The failed sends in a row of the batch at the head of a destination's queue: what
/// ``DeliveryPlanner`` needs to know when to give up (``RetryPolicy/maxAttempts``,
/// ``RetryPolicy/maxAge``).
public struct FailureStreak: Sendable, Hashable {
    /// Failed sends in a row before this one.
    public var attempts: Int
    /// Time since the first of them (on the batcher's clock), zero when there was none.
    public var age: Duration
    /// The batch is being split to isolate the event that fails (retries ran out, or
    /// ``RetryPolicy/isolateAfter`` server errors).
    public var isIsolating: Bool
    /// While isolating, events of the batch were delivered: the destination takes
    /// events, so one that keeps failing alone is the event's fault.
    public var isolationDelivered: Bool

    /// This batch was sent past an event that failed alone (``DeliveryDecision/probePast(reason:)``).
    public var isProbing: Bool

    public init(
        attempts: Int = 0, age: Duration = .zero, isIsolating: Bool = false, isolationDelivered: Bool = false, isProbing: Bool = false
    ) {
        self.attempts = attempts
        self.age = age
        self.isIsolating = isIsolating
        self.isolationDelivered = isolationDelivered
        self.isProbing = isProbing
    }
}

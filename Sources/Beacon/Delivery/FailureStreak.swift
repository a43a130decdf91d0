/// The failed sends in a row of the batch at the head of a destination's queue: what
/// ``DeliveryPlanner`` needs to know when to give up (``RetryPolicy/maxAttempts``,
/// ``RetryPolicy/maxAge``).
public struct FailureStreak: Sendable, Hashable {
    /// Failed sends in a row before this one.
    public var attempts: Int
    /// Time since the first of them (on the batcher's clock), zero when there was none.
    public var age: Duration
    /// Retries already ran out: the batch is being split to isolate the event that fails.
    public var isIsolating: Bool

    public init(attempts: Int = 0, age: Duration = .zero, isIsolating: Bool = false) {
        self.attempts = attempts
        self.age = age
        self.isIsolating = isIsolating
    }
}

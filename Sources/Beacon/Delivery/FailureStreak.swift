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
    /// While isolating, the times the event found alone failed right after a delivery
    /// around it, with no other failure in between.
    public var soloFailures: Int
    /// While isolating, events were delivered since the event found alone last failed
    /// (or since the search began): its next failure alone counts as evidence.
    public var deliveredSinceSoloFailure: Bool

    /// This batch was sent past an event that failed alone (``DeliveryDecision/probePast(reason:)``).
    public var isProbing: Bool

    /// The destination fails at random: within ``RetryPolicy/randomFailureMemory`` a batch
    /// it had refused went through whole when sent again. Its server errors then say
    /// nothing about the events, and do not start the search for one it cannot take.
    public var failsAtRandom: Bool

    public init(
        attempts: Int = 0, age: Duration = .zero, isIsolating: Bool = false, soloFailures: Int = 0,
        deliveredSinceSoloFailure: Bool = false, isProbing: Bool = false, failsAtRandom: Bool = false
    ) {
        self.failsAtRandom = failsAtRandom
        self.attempts = attempts
        self.age = age
        self.isIsolating = isIsolating
        self.soloFailures = soloFailures
        self.deliveredSinceSoloFailure = deliveredSinceSoloFailure
        self.isProbing = isProbing
    }
}

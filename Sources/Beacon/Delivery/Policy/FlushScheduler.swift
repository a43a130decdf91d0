/// Decides when the batcher starts draining the queue: a pure state machine over a
/// ``FlushPolicy``, the queue depth and the time. No clock inside: callers pass `now`.
///
/// - `.count(n)`: flush as soon as `depth >= n`.
/// - `.interval(t)`: flush `t` after the last flush, or `t` after the queue stopped being
///   empty, whichever is later; never when the queue is empty.
/// - `.manual`: only after ``requestFlush()``.
/// - `.any(policies)`: as soon as any of them would; waits for the earliest deadline.
///
/// A request is served by the drain that the next evaluation starts; one made while a
/// drain is under way starts another after it, so events committed after that drain's
/// last read are not left behind.
public struct FlushScheduler<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The policy in force.
    public private(set) var policy: FlushPolicy
    private var anchor: Instant
    private var wasEmpty = true
    private var manualRequest = false

    /// A scheduler whose first interval starts at `now`.
    public init(policy: FlushPolicy, now: Instant) {
        self.policy = policy
        self.anchor = now
    }

    /// Changes the policy; intervals restart from `now`.
    public mutating func setPolicy(_ policy: FlushPolicy, now: Instant) {
        self.policy = policy
        anchor = now
    }

    /// Asks for a flush at the next evaluation, whatever the policy.
    public mutating func requestFlush() {
        manualRequest = true
    }

    /// Records that a drain finished at `now` (the queue is empty or sending stopped).
    /// A request made during the drain still stands.
    public mutating func didFlush(now: Instant) {
        anchor = now
    }

    /// What to do now, with `depth` events queued. Answering `.flush(.manual)` serves the
    /// request: the caller starts a drain.
    public mutating func evaluate(depth: Int, now: Instant) -> FlushDecision<Instant> {
        if depth == 0 {
            wasEmpty = true
        } else if wasEmpty {
            wasEmpty = false
            // The interval counts from the first event after a quiet spell, so one event
            // after an hour of silence still waits a full interval for company.
            anchor = max(anchor, now)
        }
        if manualRequest {
            manualRequest = false
            return .flush(.manual)
        }
        return FlushScheduler.decide(policy, depth: depth, now: now, anchor: anchor)
    }

    /// The fewest events queued at which a commit can change what ``evaluate(depth:now:)``
    /// answers, while nothing else will ask it (`nil`: none can, so a commit need not wake
    /// the caller). `.count(n)`: n. `.interval`: 1, unless `timerArmed` (the caller waits for
    /// the deadline an earlier evaluation gave, and more events do not move it). `.manual`:
    /// none (a request wakes the caller by itself). `.any`: the least of its parts.
    public static func commitThreshold(_ policy: FlushPolicy, timerArmed: Bool) -> Int? {
        switch policy {
        case .manual:
            return nil
        case .count(let threshold):
            return max(1, threshold)
        case .interval:
            return timerArmed ? nil : 1
        case .any(let policies):
            return policies.compactMap { commitThreshold($0, timerArmed: timerArmed) }.min()
        }
    }

    private static func decide(_ policy: FlushPolicy, depth: Int, now: Instant, anchor: Instant) -> FlushDecision<Instant> {
        switch policy {
        case .manual:
            return .idle
        case .count(let threshold):
            return depth >= max(1, threshold) ? .flush(.count) : .idle
        case .interval(let interval):
            guard depth > 0 else { return .idle }
            let deadline = anchor.advanced(by: interval)
            return now >= deadline ? .flush(.interval) : .wait(until: deadline)
        case .any(let policies):
            var earliest: Instant?
            for policy in policies {
                switch decide(policy, depth: depth, now: now, anchor: anchor) {
                case .flush(let reason):
                    return .flush(reason)
                case .wait(let deadline):
                    earliest = earliest.map { min($0, deadline) } ?? deadline
                case .idle:
                    continue
                }
            }
            return earliest.map { .wait(until: $0) } ?? .idle
        }
    }
}

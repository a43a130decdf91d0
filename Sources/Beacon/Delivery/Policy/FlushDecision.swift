/// What the scheduler says.
public enum FlushDecision<Instant: InstantProtocol>: Sendable, Hashable {
    /// Start draining now.
    case flush(FlushReason)
    /// Nothing to do before this instant (evaluate again then, or on the next commit).
    case wait(until: Instant)
    /// Nothing to do until something changes (a commit, a request, a new policy).
    case idle
}

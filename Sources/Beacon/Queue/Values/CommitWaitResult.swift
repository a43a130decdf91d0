/// How a bounded wait for a commit ended (see ``EventQueue/waitForCommit(_:timeout:)``).
public enum CommitWaitResult: Sendable, Hashable {
    /// The event is in the store.
    case committed
    /// The event was dropped from memory before it could be stored (the store was
    /// failing and the memory buffer overflowed), or the queue was closed first.
    case dropped
    /// The time ran out (or the waiting task was cancelled) first; the event may still
    /// be stored later.
    case timedOut
}

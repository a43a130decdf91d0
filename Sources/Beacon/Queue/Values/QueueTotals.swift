import BeaconWire

/// Lifetime counters of a queue. They add up: `committed + deadLettersRetried ==
/// delivered + deadLettered + droppedFromStore + depth` (a retried dead letter enters the
/// queue again), and every event `track` accepted was either committed, dropped from
/// memory, or is still buffered. An event counts once each time it leaves the store: as
/// dead-lettered if any destination dead-lettered it, else as delivered.
public struct QueueTotals: Sendable, Hashable {
    /// Events ever accepted by `append`.
    public var accepted: Int = 0
    /// Events ever committed to the store.
    public var committed: Int = 0
    /// Events delivered and removed.
    public var delivered: Int = 0
    /// Events moved to the dead-letter table.
    public var deadLettered: Int = 0
    /// Events dropped by the overflow policy (from the store or from memory).
    public var dropped: Int = 0
    /// Dead letters an operator sent back into the queue.
    public var deadLettersRetried: Int = 0
    /// Dead letters an operator deleted.
    public var deadLettersPurged: Int = 0

    public init(
        accepted: Int = 0, committed: Int = 0, delivered: Int = 0, deadLettered: Int = 0, dropped: Int = 0,
        deadLettersRetried: Int = 0, deadLettersPurged: Int = 0
    ) {
        self.deadLettersRetried = deadLettersRetried
        self.deadLettersPurged = deadLettersPurged
        self.accepted = accepted
        self.committed = committed
        self.delivered = delivered
        self.deadLettered = deadLettered
        self.dropped = dropped
    }
}

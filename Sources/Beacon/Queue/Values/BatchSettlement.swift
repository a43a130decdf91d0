import BeaconWire

/// What a finished send does to the queue, applied in one transaction.
public struct BatchSettlement: Sendable, Hashable {
    /// The history record of the send.
    public var record: BatchRecord
    /// Events delivered: done for the destination.
    public var delivered: [Int64]
    /// Events refused for good: copied to the dead-letter table, done for the destination.
    public var deadLetters: [DeadLetter]
    /// Events the destination's enrichment chain filtered out: done, never sent.
    public var filtered: [Int64]
    /// The last sequence of the batch: the destination's lease is released through it
    /// (events read ahead past it stay leased). The rest of the batch stays queued.
    public var through: Int64?

    public init(
        record: BatchRecord, delivered: [Int64] = [], deadLetters: [DeadLetter] = [], filtered: [Int64] = [],
        through: Int64? = nil
    ) {
        self.record = record
        self.delivered = delivered
        self.deadLetters = deadLetters
        self.filtered = filtered
        self.through = through
    }

    /// Every sequence this settlement makes done for its destination.
    var done: [Int64] { delivered + filtered + deadLetters.map(\.event.sequence) }
}

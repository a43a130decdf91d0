import BeaconWire

/// One destination's progress through the queue. They add up: every event committed
/// while it was registered is pending, delivered, dead-lettered, filtered or dropped.
public struct DestinationDepth: Sendable, Hashable {
    /// Events queued that it is not done with.
    public var pending: Int
    /// Events it delivered.
    public var delivered: Int
    /// Events it refused for good (in the dead-letter table under its name).
    public var deadLettered: Int
    /// Events its enrichment chain filtered out.
    public var filtered: Int
    /// Events dropped by the overflow policy before it had them.
    public var dropped: Int

    public init(pending: Int = 0, delivered: Int = 0, deadLettered: Int = 0, filtered: Int = 0, dropped: Int = 0) {
        self.pending = pending
        self.delivered = delivered
        self.deadLettered = deadLettered
        self.filtered = filtered
        self.dropped = dropped
    }
}

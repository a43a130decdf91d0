/// A run's totals, over every step and the final drain.
public struct SimulationTotals: Sendable, Hashable, Codable {
    /// Events the engine acknowledged; posted and not acknowledged; poison among the tracked.
    public var tracked: Int
    public var inDoubt: Int
    public var poison: Int
    /// Poison events the engine refused at ingest: they never entered the queue, so the run
    /// did not test what it names for them.
    public var poisonRefused: Int
    /// Distinct events stored at each collector.
    public var delivered: [String: Int]
    /// Dead letters in the engine's store at the end.
    public var deadLetters: Int
    /// Events the overflow policy dropped (over every destination, once each).
    public var dropped: Int
    /// Redeliveries the collectors recognised and did not store again.
    public var duplicatesSent: Int
    /// Rows beyond the first for one `messageId` at a collector (always 0 when dedup holds).
    public var duplicatesStored: Int
    /// Engine counts summed over its processes.
    public var retries: Int
    public var splits: Int
    public var requests: Int
    public var bytesSent: Int
    /// The deepest queue sampled.
    public var maxDepth: Int?
    /// Times the engine process was killed and started again.
    public var restarts: Int

    public init(
        tracked: Int = 0, inDoubt: Int = 0, poison: Int = 0, poisonRefused: Int = 0, delivered: [String: Int] = [:], deadLetters: Int = 0,
        dropped: Int = 0, duplicatesSent: Int = 0, duplicatesStored: Int = 0, retries: Int = 0, splits: Int = 0,
        requests: Int = 0, bytesSent: Int = 0, maxDepth: Int? = nil, restarts: Int = 0
    ) {
        self.tracked = tracked
        self.inDoubt = inDoubt
        self.poison = poison
        self.poisonRefused = poisonRefused
        self.delivered = delivered
        self.deadLetters = deadLetters
        self.dropped = dropped
        self.duplicatesSent = duplicatesSent
        self.duplicatesStored = duplicatesStored
        self.retries = retries
        self.splits = splits
        self.requests = requests
        self.bytesSent = bytesSent
        self.maxDepth = maxDepth
        self.restarts = restarts
    }
}

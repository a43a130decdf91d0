/// One destination's side of a run: what its collector stored, what was dead-lettered for
/// it, how deep its share of the queue got, and when it had drained.
public struct SimulationDestination: Sendable, Hashable, Codable {
    /// The destination's (and its collector's) name.
    public var name: String
    /// Distinct events its collector stored.
    public var delivered: Int
    /// Events dead-lettered for it.
    public var deadLetters: Int
    /// The most events pending for it at one sample (`nil`: the engine never answered).
    public var maxDepth: Int?
    /// Seconds from the last recovery until nothing tracked before it was pending for this
    /// destination (`nil`: not drained by the run's end).
    public var drainSeconds: Double?
    /// Track to stored, over the tracked events its collector stored (`nil`: none).
    public var latency: SimulationLatency?

    public init(
        name: String, delivered: Int, deadLetters: Int, maxDepth: Int?, drainSeconds: Double?, latency: SimulationLatency? = nil
    ) {
        self.name = name
        self.delivered = delivered
        self.deadLetters = deadLetters
        self.maxDepth = maxDepth
        self.drainSeconds = drainSeconds
        self.latency = latency
    }
}

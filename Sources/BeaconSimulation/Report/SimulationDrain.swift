/// How the queue drained after the last outage.
public struct SimulationDrain: Sendable, Hashable, Codable {
    /// Seconds from the run's start to the last recovery: the start of the last run of
    /// steps with nothing offline, faulted or paused that follows an outage; the end of
    /// the steps when the last step has an outage or none has one.
    public var recoveredAt: Double
    /// Seconds from then until every event tracked before it had left the queue; `nil`
    /// when that did not happen before the drain timed out.
    public var seconds: Double?
    /// Whether the queue was empty when the engine stopped.
    public var emptied: Bool

    public init(recoveredAt: Double, seconds: Double?, emptied: Bool) {
        self.recoveredAt = recoveredAt
        self.seconds = seconds
        self.emptied = emptied
    }
}

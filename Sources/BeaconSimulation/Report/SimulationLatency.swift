/// How long events took from `track` (the engine's acknowledgement of the post) to their
/// collector's store (its arrival time), for one destination: percentiles in seconds.
public struct SimulationLatency: Sendable, Hashable, Codable {
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double
    /// Events measured (every tracked event the collector stored).
    public var events: Int

    public init(p50: Double, p90: Double, p99: Double, max: Double, events: Int) {
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
        self.events = events
    }

    /// The percentiles of `seconds` (nearest rank); `nil` for none. Negative values (a
    /// clock step between the two readings) count as 0; values that are not finite are left out.
    public init?(seconds: [Double]) {
        let sorted = seconds.filter(\.isFinite).map { Swift.max(0, $0) }.sorted()
        guard let last = sorted.last else { return nil }
        func rank(_ share: Double) -> Double {
            // Nearest rank: the smallest value with at least `share` of the values at or below it.
            let count = Double(sorted.count)
            let index = Swift.min(sorted.count - 1, Swift.max(0, Int((share * count).rounded(.up)) - 1))  // checked: 0 < share <= 1, count < 2^53
            return sorted[index]
        }
        self.init(p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: last, events: sorted.count)
    }
}

import DequeModule

/// The send durations of the latest ``capacity`` delivered batches, and their p50 and
/// p99, kept up to date as batches finish: each arrival is placed in a sorted copy by
/// binary search, and the one it pushes out is found the same way. No sort per batch,
/// which at the window's 1,000 durations cost more than the rest of a batch's report.
struct LatencyWindow {
    /// How many of the latest durations count.
    let capacity: Int
    /// In arrival order, oldest first.
    private var arrivals = Deque<Duration>()
    /// The same durations, ascending.
    private var sorted: [Duration] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        sorted.reserveCapacity(self.capacity + 1)
    }

    var count: Int { arrivals.count }

    /// Adds the latest duration, forgetting the oldest past ``capacity``.
    mutating func append(_ duration: Duration) {
        arrivals.append(duration)
        sorted.insert(duration, at: Self.index(of: duration, in: sorted))
        if arrivals.count > capacity, let oldest = arrivals.popFirst() {
            // An equal value at the index found: any one of equals may go.
            sorted.remove(at: Self.index(of: oldest, in: sorted))
        }
    }

    /// p50 and p99 of the window, by the rule ``TrackingObserver/percentiles(_:)`` uses.
    var latency: EngineSnapshot.Latency { Self.latency(sorted: sorted) }

    /// p50 and p99 of ascending durations: the sample at the nearest rank.
    static func latency(sorted: [Duration]) -> EngineSnapshot.Latency {
        guard !sorted.isEmpty else { return EngineSnapshot.Latency() }
        func at(_ share: Double) -> Duration {
            sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * share).rounded()))]
        }
        return EngineSnapshot.Latency(p50: at(0.5), p99: at(0.99))
    }

    /// The first index of `sorted` whose value is not below `duration`.
    private static func index(of duration: Duration, in sorted: [Duration]) -> Int {
        sorted.partitioningIndex { $0 >= duration }
    }
}

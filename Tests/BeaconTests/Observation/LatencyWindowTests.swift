@testable import Beacon
import BeaconWire
import DequeModule
import Testing

/// The observer's p50 and p99 kept up to date batch by batch, against sorting the
/// window's durations afresh each time (what it did before).
@Suite("Latency window")
struct LatencyWindowTests {
    @Test("an empty window has no percentiles; one duration is both")
    func emptyAndOne() {
        var window = LatencyWindow(capacity: 3)
        #expect(window.latency == EngineSnapshot.Latency())
        window.append(.milliseconds(7))
        #expect(window.latency == EngineSnapshot.Latency(p50: .milliseconds(7), p99: .milliseconds(7)))
    }

    /// Random durations with many repeats (the window removes one of several equal
    /// values), through windows smaller and larger than the run: after every arrival the
    /// answer is the fresh sort's.
    @Test(arguments: [(1, 1 as UInt64), (2, 2), (5, 3), (50, 4), (1000, 5)])
    func agreesWithSortingAfresh(capacity: Int, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var window = LatencyWindow(capacity: capacity)
        var recent = Deque<Duration>()
        for step in 0..<3000 {
            let duration = Duration.microseconds(Int64.random(in: 0...40, using: &random) * 250)
            window.append(duration)
            recent.append(duration)
            if recent.count > capacity { recent.removeFirst() }
            #expect(window.count == recent.count)
            let expected = TrackingObserver.percentiles(recent)
            guard window.latency == expected else {
                Issue.record("capacity \(capacity), step \(step): \(window.latency) against \(expected)")
                return
            }
        }
    }

    @Test("a capacity below one keeps one")
    func capacityBelowOne() {
        var window = LatencyWindow(capacity: 0)
        window.append(.seconds(1))
        window.append(.seconds(2))
        #expect(window.count == 1)
        #expect(window.latency.p50 == .seconds(2))
    }
}

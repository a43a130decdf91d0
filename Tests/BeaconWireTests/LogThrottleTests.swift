import BeaconWire
import Synchronization
import Testing

/// Per kind: the first line, then one per interval with the count held back.
struct LogThrottleTests {
    /// A clock the test moves.
    final class Instants: Sendable {
        private let current = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { current.withLock { $0 } }
        func advance(by duration: Duration) { current.withLock { $0 = $0.advanced(by: duration) } }
    }

    @Test func theFirstLineGoesThenOnePerIntervalSayingHowManyWereHeldBack() {
        let instants = Instants()
        let throttle = LogThrottle(interval: .seconds(10), now: { instants.now })
        #expect(throttle.admit("queue full") == LogThrottle.Decision(logs: true, suppressed: 0))
        for _ in 0..<100 { #expect(!throttle.admit("queue full").logs) }
        // Another kind is not held back by this one.
        #expect(throttle.admit("store failed").logs)
        instants.advance(by: .milliseconds(9_999))
        #expect(!throttle.admit("queue full").logs)
        instants.advance(by: .milliseconds(1))
        #expect(throttle.admit("queue full") == LogThrottle.Decision(logs: true, suppressed: 101))
        #expect(!throttle.admit("queue full").logs)
        instants.advance(by: .seconds(60))
        #expect(throttle.admit("queue full") == LogThrottle.Decision(logs: true, suppressed: 1))
        // Quiet for an interval: the next line goes out, holding back nothing.
        instants.advance(by: .seconds(10))
        #expect(throttle.admit("queue full") == LogThrottle.Decision(logs: true, suppressed: 0))
    }
}

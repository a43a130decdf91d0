import Beacon
import BeaconTesting
import BeaconWire
import Testing

/// ``FlushScheduler/commitThreshold(_:timerArmed:)``: a commit that leaves fewer events
/// queued than the threshold never changes what the scheduler answers, so the batcher
/// need not wake for it.
extension FlushSchedulerTests {
    @Test func commitThresholdOfEachPolicy() {
        #expect(FlushScheduler<Instant>.commitThreshold(.manual, timerArmed: false) == nil)
        #expect(FlushScheduler<Instant>.commitThreshold(.count(100), timerArmed: false) == 100)
        #expect(FlushScheduler<Instant>.commitThreshold(.count(0), timerArmed: true) == 1)
        #expect(FlushScheduler<Instant>.commitThreshold(.interval(.seconds(5)), timerArmed: false) == 1)
        #expect(FlushScheduler<Instant>.commitThreshold(.interval(.seconds(5)), timerArmed: true) == nil)
        let agentDefault = FlushPolicy.any([.count(100), .interval(.seconds(5))])
        #expect(FlushScheduler<Instant>.commitThreshold(agentDefault, timerArmed: true) == 100)
        #expect(FlushScheduler<Instant>.commitThreshold(agentDefault, timerArmed: false) == 1)
        #expect(FlushScheduler<Instant>.commitThreshold(.any([]), timerArmed: false) == nil)
    }

    /// 3,000 random policies, depths and times: every commit below the threshold leaves
    /// the answer as it was (the idle stays idle, a wait keeps its deadline).
    @Test func commitsBelowTheThresholdChangeNothing() {
        var random = SeededGenerator(seed: 0x5eed_c0de)
        func policy(_ depth: Int) -> FlushPolicy {
            switch random.next() % (depth > 1 ? 3 : 4) {
            case 0: return .manual
            case 1: return .count(Int(random.next() % 25))
            case 2: return .interval(.milliseconds(Int64(1 + random.next() % 10_000)))
            default: return .any((0..<Int(random.next() % 4)).map { _ in policy(depth + 1) })
            }
        }
        var checked = 0
        for _ in 0..<3_000 {
            let chosen = policy(0)
            var scheduler = FlushScheduler(policy: chosen, now: t0)
            // Some history: an earlier evaluation and maybe a flush.
            _ = scheduler.evaluate(depth: Int(random.next() % 3), now: at(Double(random.next() % 50)))
            if random.next() % 2 == 0 { scheduler.didFlush(now: at(50)) }
            let now = at(60 + Double(random.next() % 20))
            let before = Int(random.next() % 30)
            let first = scheduler.evaluate(depth: before, now: now)
            if case .flush = first { continue }  // a drain starts: the batcher is not waiting
            var timerArmed = false
            if case .wait = first { timerArmed = true }
            let threshold = FlushScheduler<Instant>.commitThreshold(chosen, timerArmed: timerArmed) ?? Int.max
            for after in (before + 1)..<(before + 40) where after < threshold {
                var copy = scheduler
                #expect(copy.evaluate(depth: after, now: now) == first, "\(chosen): \(before) → \(after) below \(threshold)")
                checked += 1
            }
        }
        #expect(checked > 10_000, "the property was checked \(checked) times")
    }
}

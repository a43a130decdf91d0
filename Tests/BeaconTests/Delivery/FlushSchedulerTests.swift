import Beacon
import BeaconTesting
import Testing

@Suite("Flush scheduler (pure, manual clock)")
struct FlushSchedulerTests {
    typealias Instant = ManualClock.Instant
    let t0 = Instant(offset: .zero)

    func at(_ seconds: Double) -> Instant { Instant(offset: .milliseconds(Int64(seconds * 1000))) }

    @Test func countFlushesAtThreshold() {
        var scheduler = FlushScheduler(policy: .count(10), now: t0)
        #expect(scheduler.evaluate(depth: 0, now: t0) == .idle)
        #expect(scheduler.evaluate(depth: 9, now: at(100)) == .idle)
        #expect(scheduler.evaluate(depth: 10, now: at(100)) == .flush(.count))
        #expect(scheduler.evaluate(depth: 500, now: at(100)) == .flush(.count))
    }

    @Test func intervalWaitsFromFirstEventAfterQuiet() {
        var scheduler = FlushScheduler(policy: .interval(.seconds(5)), now: t0)
        #expect(scheduler.evaluate(depth: 0, now: at(1)) == .idle)
        // First event at t=60: a full interval from then, not from t=0.
        #expect(scheduler.evaluate(depth: 1, now: at(60)) == .wait(until: at(65)))
        #expect(scheduler.evaluate(depth: 3, now: at(64.9)) == .wait(until: at(65)))
        #expect(scheduler.evaluate(depth: 3, now: at(65)) == .flush(.interval))
        scheduler.didFlush(now: at(65.2))
        // Events left (e.g. a failed send): the next interval counts from the flush.
        #expect(scheduler.evaluate(depth: 2, now: at(66)) == .wait(until: at(70.2)))
    }

    @Test func intervalIsIdleWhenEmpty() {
        var scheduler = FlushScheduler(policy: .interval(.seconds(1)), now: t0)
        #expect(scheduler.evaluate(depth: 0, now: at(1000)) == .idle)
    }

    @Test func manualOnlyOnRequest() {
        var scheduler = FlushScheduler(policy: .manual, now: t0)
        #expect(scheduler.evaluate(depth: 1_000_000, now: at(1e6)) == .idle)
        scheduler.requestFlush()
        #expect(scheduler.evaluate(depth: 0, now: at(1e6)) == .flush(.manual))
        // That evaluation started the drain that serves the request.
        #expect(scheduler.evaluate(depth: 5, now: at(1e6)) == .idle)
        scheduler.didFlush(now: at(1e6))
        #expect(scheduler.evaluate(depth: 5, now: at(1e6)) == .idle)
    }

    @Test func aRequestDuringADrainStartsAnotherAfterIt() {
        var scheduler = FlushScheduler(policy: .manual, now: t0)
        scheduler.requestFlush()
        #expect(scheduler.evaluate(depth: 10, now: at(1)) == .flush(.manual))
        // Pressed again while that drain runs: events may have come after its last read.
        scheduler.requestFlush()
        scheduler.didFlush(now: at(2))
        #expect(scheduler.evaluate(depth: 3, now: at(2)) == .flush(.manual))
        scheduler.didFlush(now: at(3))
        #expect(scheduler.evaluate(depth: 3, now: at(3)) == .idle)
    }

    @Test func requestOverridesAnyPolicy() {
        for policy: FlushPolicy in [.count(100), .interval(.seconds(30)), .any([.count(100), .interval(.seconds(30))])] {
            var scheduler = FlushScheduler(policy: policy, now: t0)
            scheduler.requestFlush()
            #expect(scheduler.evaluate(depth: 1, now: t0) == .flush(.manual))
        }
    }

    @Test func anyTakesFirstTriggerAndEarliestDeadline() {
        var scheduler = FlushScheduler(policy: .any([.count(20), .interval(.seconds(30)), .interval(.seconds(10))]), now: t0)
        #expect(scheduler.evaluate(depth: 1, now: at(0)) == .wait(until: at(10)))
        #expect(scheduler.evaluate(depth: 19, now: at(5)) == .wait(until: at(10)))
        #expect(scheduler.evaluate(depth: 20, now: at(5)) == .flush(.count))
        #expect(scheduler.evaluate(depth: 5, now: at(10)) == .flush(.interval))
        var counts = FlushScheduler(policy: .any([.manual, .count(3)]), now: t0)
        #expect(counts.evaluate(depth: 2, now: t0) == .idle)
        #expect(counts.evaluate(depth: 3, now: t0) == .flush(.count))
        var empty = FlushScheduler(policy: .any([]), now: t0)
        #expect(empty.evaluate(depth: 10, now: at(100)) == .idle)
    }

    @Test func policyChangeAtRuntimeRestartsIntervals() {
        var scheduler = FlushScheduler(policy: .count(100), now: t0)
        #expect(scheduler.evaluate(depth: 50, now: at(1)) == .idle)
        scheduler.setPolicy(.count(50), now: at(2))
        #expect(scheduler.evaluate(depth: 50, now: at(2)) == .flush(.count))
        scheduler.setPolicy(.interval(.seconds(4)), now: at(3))
        #expect(scheduler.evaluate(depth: 50, now: at(3)) == .wait(until: at(7)))
        scheduler.setPolicy(.manual, now: at(4))
        #expect(scheduler.evaluate(depth: 50, now: at(100)) == .idle)
    }
}

@Suite("Flush policy text")
struct FlushPolicyParsingTests {
    @Test(arguments: [
        ("manual", FlushPolicy.manual),
        ("count 50", .count(50)),
        ("50 events", .count(50)),
        ("every 5s", .interval(.seconds(5))),
        ("250ms", .interval(.milliseconds(250))),
        ("every 2m", .interval(.seconds(120))),
        ("every 1h", .interval(.seconds(3600))),
        ("count 20 or 30s", .any([.count(20), .interval(.seconds(30))])),
        ("Count 20 | every 1.5s", .any([.count(20), .interval(.milliseconds(1500))])),
    ])
    func parses(text: String, policy: FlushPolicy) throws {
        #expect(try FlushPolicy(parsing: text) == policy)
    }

    @Test(arguments: ["", "count", "count -3", "count 0", "every", "0s", "soon", "count 5 or"])
    func refuses(text: String) {
        #expect(throws: FlushPolicyParseError.self) { try FlushPolicy(parsing: text) }
    }

    @Test func descriptionParsesBack() throws {
        for policy: FlushPolicy in [.manual, .count(7), .interval(.milliseconds(1500)), .interval(.seconds(90)), .default] {
            #expect(try FlushPolicy(parsing: policy.description) == policy)
        }
    }
}

import Testing

@testable import BeaconSimulation

/// The report's warnings where the engine's real-time timers shape a step run faster than
/// written: the flush interval, the backoff and a collector's `Retry-After`; none at a time
/// scale of 1, where scenario time is real time.
@Suite struct RealTimeTimersTests {
    static let timers = RealTimeTimers(flushIntervalSeconds: 1, flushCount: 100)

    static func scenario(_ steps: [ScenarioStep]) -> Scenario {
        Scenario(name: "t", collectors: [ScenarioCollector(name: "main"), ScenarioCollector(name: "warehouse")], steps: steps)
    }

    @Test func aThrottleAt600TimesSaysItsRetryAfterAndTheBackoffRunInRealTime() {
        let step = ScenarioStep(
            name: "throttled", seconds: 600, rate: 1,
            faults: ["warehouse": ScenarioFaults(throttleRate: 0.5, retryAfterSeconds: 3)])
        let warnings = Self.timers.warnings(for: step, in: Self.scenario([step]), timeScale: 600)
        #expect(warnings == [
            "retries back off in real time (0.5 s growing to 60 s): 1 in the step's 1 s of wall time instead of 15 in 10 min; the next can wait 1 s, 10 min of scenario time",
            "warehouse's Retry-After 3 s is honoured in real time: 30 min of scenario time (the step lasts 10 min)",
        ])
        // The same step as written: nothing to say.
        #expect(Self.timers.warnings(for: step, in: Self.scenario([step]), timeScale: 1).isEmpty)
    }

    @Test func aFlushIntervalDominatesOnlyWhenTheCountDoesNotComeFirst() {
        // 0.5 events/s at 600×: 300 events a wall second, the count of 100 comes first.
        let busy = ScenarioStep(name: "busy", seconds: 1_800, rate: 0.5)
        #expect(Self.timers.warnings(for: busy, in: Self.scenario([busy]), timeScale: 600).isEmpty)
        // Without a count, every 1 s holds 10 minutes of a 30-minute step's events.
        let interval = RealTimeTimers(flushIntervalSeconds: 1, flushCount: nil)
        #expect(interval.warnings(for: busy, in: Self.scenario([busy]), timeScale: 600) == [
            "flush every 1 s runs in real time: 10 min of scenario time between flushes (the step lasts 30 min)",
        ])
        // Offline, no flush happens whatever the timer; a step that tracks nothing flushes nothing.
        let offline = ScenarioStep(name: "tunnel", seconds: 1_800, rate: 0.5, offline: true)
        #expect(interval.warnings(for: offline, in: Self.scenario([offline]), timeScale: 600).isEmpty)
        let idle = ScenarioStep(name: "idle", seconds: 1_800)
        #expect(interval.warnings(for: idle, in: Self.scenario([idle]), timeScale: 600).isEmpty)
        // A manual policy has no interval.
        let manual = RealTimeTimers(flushIntervalSeconds: nil, flushCount: nil)
        #expect(manual.warnings(for: busy, in: Self.scenario([busy]), timeScale: 600).isEmpty)
    }

    @Test func aCollectorDownAtScaleSeesFewerRetriesThanWritten() {
        let down = ScenarioStep(name: "down", seconds: 3_600, faults: ["main": ScenarioFaults(down: true)])
        let warnings = Self.timers.warnings(for: down, in: Self.scenario([down]), timeScale: 300)
        #expect(warnings.count == 1 && warnings[0].hasPrefix("retries back off in real time"), "\(warnings)")
        #expect(warnings[0].contains("in the step's 12 s of wall time instead of 65 in 60 min"), "\(warnings)")
        // A Retry-After on a collector that is down is never sent: no warning for it.
        #expect(!warnings[0].contains("Retry-After"))
    }

    @Test func theBackoffIsTheEnginesCappedDoubling() {
        let timers = Self.timers
        #expect((0..<10).map { timers.delay(afterFailures: $0) } == [0.5, 1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(timers.retries(within: 0.4) == 0 && timers.retries(within: 0.5) == 1 && timers.retries(within: 3.5) == 3)
        #expect(timers.retries(within: .infinity) == 10_000, "bounded, whatever the input")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -5, 0, 1, 1e300])
    func hostileScalesAndTimersSayNothingOrStayFinite(scale: Double) {
        let step = ScenarioStep(name: "s", seconds: 10, rate: 1, faults: ["main": ScenarioFaults(failRate: 1)])
        let warnings = RealTimeTimers(
            flushIntervalSeconds: .nan, flushCount: -1, backoffInitialSeconds: .nan, backoffMultiplier: .infinity,
            backoffMaxSeconds: -1, maxRetryAfterSeconds: .nan
        ).warnings(for: step, in: Self.scenario([step]), timeScale: scale)
        if !(scale.isFinite && scale > 1) { #expect(warnings.isEmpty) }
        #expect(warnings.allSatisfy { !$0.contains("nan") && !$0.contains("inf") }, "\(warnings)")
    }

    @Test func durationsReadAsAPersonSaysThem() {
        #expect(RealTimeTimers.duration(0.5) == "0.5 s" && RealTimeTimers.duration(45) == "45 s")
        #expect(RealTimeTimers.duration(600) == "10 min" && RealTimeTimers.duration(9_000) == "2.5 h")
        #expect(RealTimeTimers.duration(259_200) == "3 d" && RealTimeTimers.duration(.nan) == "?")
    }
}

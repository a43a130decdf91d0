import BeaconSimulation
import Testing

/// The report as text, and the words a step is described with.
@Suite struct SimulationReportTextTests {
    static let scenario = Scenario(
        name: "s", collectors: [ScenarioCollector(name: "main"), ScenarioCollector(name: "backup")],
        steps: [ScenarioStep(name: "x", seconds: 1)])

    static func report(expectations: [SimulationCheck]) -> SimulationReport {
        SimulationReport(
            scenario: "Offline burst", seed: 7, timeScale: 1, seconds: 15.25,
            steps: [
                StepReport(name: "commute", start: 0, seconds: 3, condition: .healthy, actions: ["100/s"], tracked: 300, delivered: 290, maxDepth: 101),
                StepReport(name: "a very long step name indeed", start: 3, seconds: 8, condition: .offline, actions: ["offline"], tracked: 1_800, refused: 2, maxDepth: nil, drainSeconds: 0.25),
            ],
            totals: SimulationTotals(tracked: 2_100, inDoubt: 2, delivered: ["main": 2_100], requests: 12, bytesSent: 1_536_000, maxDepth: 1_890, restarts: 1),
            drain: SimulationDrain(recoveredAt: 11, seconds: nil, emptied: false),
            invariants: [SimulationCheck(name: "accounted-for:main", holds: true, detail: "fine")],
            expectations: expectations, timeline: SimulationTimeline())
    }

    @Test func aPassingReportSaysSoAndLinesUpItsColumns() {
        let text = Self.report(expectations: []).text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Offline burst  (seed 7, time scale 1.0×, 15.3 s)")
        let table = lines.filter { $0.hasPrefix("step ") || $0.hasPrefix("commute") || $0.hasPrefix("a very") }
        #expect(table.count == 3)
        #expect(Set(table.map(\.count)).count == 1, "every row as wide as the header: \(table)")
        #expect(text.contains("a very long ste…"), "names are clipped to 16 characters")
        #expect(text.contains("1.5 MB"))
        #expect(text.contains("refused 2"))
        #expect(text.contains("NOT drained"))
        #expect(text.contains("events still queued at the end"))
        #expect(lines.last == "PASSED: all 1 checks hold")
    }

    @Test func aFailingReportNamesEachFailedCheck() {
        let report = Self.report(expectations: [
            SimulationCheck(name: "maxDepth", holds: false, detail: "deepest 1,890; expected at most 10"),
            SimulationCheck(name: "deadLetters", holds: true, detail: "0"),
        ])
        #expect(!report.passed)
        #expect(report.failures.map(\.name) == ["maxDepth"])
        #expect(report.text.contains("  FAIL  maxDepth  deepest 1,890; expected at most 10"))
        #expect(report.text.contains("  ok    deadLetters  0"))
        #expect(report.text.hasSuffix("FAILED: 1 of 3 checks did not hold"))
    }

    @Test func formatsAreFixedAndNeverTrap() {
        #expect(SimulationFormat.count(1_234_567) == "1,234,567")
        #expect(SimulationFormat.count(-1_000) == "-1,000")
        #expect(SimulationFormat.count(Int.min).hasPrefix("-9,223"))
        #expect(SimulationFormat.decimal(2.25) == "2.3", "half away from zero")
        #expect(SimulationFormat.decimal(-0.04) == "0.0" && SimulationFormat.decimal(-0.26) == "-0.3")
        #expect(SimulationFormat.decimal(.nan) == "?" && SimulationFormat.decimal(.infinity) == "?" && SimulationFormat.decimal(1e300) == "?")
        #expect(SimulationFormat.amount(200) == "200" && SimulationFormat.amount(2.5) == "2.5")
        #expect(SimulationFormat.seconds(0.001) == "0.001 s" && SimulationFormat.seconds(12) == "12.0 s")
        #expect(SimulationFormat.bytes(999) == "999 B" && SimulationFormat.bytes(1_500) == "1.5 KB")
        #expect(SimulationFormat.percent(0.3) == "30.0%")
    }

    @Test func aStepIsDescribedInWordsAndByItsCondition() {
        var step = ScenarioStep(name: "bad", seconds: 2, rate: 2.5, burst: 10, poison: 1, kill: true, retryNow: true)
        #expect(Self.scenario.condition(of: step) == .healthy)
        #expect(Self.scenario.actions(of: step) == ["kill -9 and restart", "burst 10", "poison 1", "retry now", "2.5/s"])
        step.paused = ["backup"]
        #expect(Self.scenario.condition(of: step) == .paused)
        step.faults = ["main": ScenarioFaults(failRate: 0.3, throttleRate: 0.1, retryAfterSeconds: 2)]
        #expect(Self.scenario.condition(of: step) == .faulted)
        #expect(Self.scenario.actions(of: step).contains("main: fail 30.0%, throttle 10.0% (retry after 2 s)"))
        step.offline = true
        #expect(Self.scenario.condition(of: step) == .offline)
        // A slow collector is not an outage, and its own faults are not repeated at every step.
        let slow = Scenario(
            name: "s", collectors: [ScenarioCollector(name: "main", faults: ScenarioFaults(latencyMilliseconds: 20))],
            steps: [ScenarioStep(name: "x", seconds: 1)])
        #expect(slow.condition(of: slow.steps[0]) == .healthy)
        #expect(slow.actions(of: slow.steps[0]).isEmpty)
        // Nor is a batch-size limit (the engine splits; every event arrives), in a step or as a
        // collector's own: the drain is measured from the end of the last step that refused delivery.
        let limited = ScenarioStep(name: "z", seconds: 1, faults: ["main": ScenarioFaults(latencyMilliseconds: 20, maxBatchEvents: 10)])
        #expect(slow.condition(of: limited) == .healthy)
        let throttled = ScenarioStep(name: "t", seconds: 1, faults: ["main": ScenarioFaults(throttleRate: 0.2, maxBatchEvents: 10)])
        #expect(slow.condition(of: throttled) == .faulted)
        let failing = ScenarioStep(name: "y", seconds: 1, faults: ["main": ScenarioFaults(failRate: 0.5)])
        #expect(slow.condition(of: failing) == .faulted)
        #expect(slow.actions(of: failing) == ["main: fail 50.0%"])
        #expect(ScenarioFaults(down: true).summary == "down")
        #expect(ScenarioFaults.none.summary == "none")
        #expect(ScenarioFaults(hangRate: 0.05, hangSeconds: 30, maxBatchEvents: 50).summary == "hang 5.0% for 30 s, 413 over 50 events")
    }
}

import BeaconSimulation
import Testing

/// Each expectation holds at its limit and fails past it, naming itself.
@Suite struct ExpectationCheckTests {
    static let totals = SimulationTotals(
        tracked: 100, delivered: ["main": 99], deadLetters: 1, dropped: 0, duplicatesSent: 4, duplicatesStored: 0,
        maxDepth: 50)
    static let drain = SimulationDrain(recoveredAt: 10, seconds: 2.5, emptied: true)

    static func failed(_ expect: ScenarioExpectations, drain: SimulationDrain = Self.drain) -> [String] {
        ExpectationCheck.check(expect, totals: totals, drain: drain).filter { !$0.holds }.map(\.name)
    }

    @Test func nothingExpectedChecksNothing() {
        #expect(ExpectationCheck.check(ScenarioExpectations(), totals: Self.totals, drain: Self.drain).isEmpty)
    }

    @Test func limitsHoldAtTheEdgeAndFailPastIt() {
        #expect(Self.failed(ScenarioExpectations(maxDepth: 50)).isEmpty)
        #expect(Self.failed(ScenarioExpectations(maxDepth: 49)) == ["maxDepth"])
        #expect(Self.failed(ScenarioExpectations(drainedWithinSeconds: 2.5)).isEmpty)
        #expect(Self.failed(ScenarioExpectations(drainedWithinSeconds: 0.001)) == ["drainedWithinSeconds"])
        #expect(Self.failed(ScenarioExpectations(duplicatesSent: 4)).isEmpty)
        #expect(Self.failed(ScenarioExpectations(duplicatesSent: 3)) == ["duplicatesSent"])
    }

    @Test func countsMustMatchExactly() {
        #expect(Self.failed(ScenarioExpectations(deadLetters: 1, duplicatesStored: 0, dropped: 0, delivered: 99)).isEmpty)
        #expect(Self.failed(ScenarioExpectations(deadLetters: 0)) == ["deadLetters"])
        #expect(Self.failed(ScenarioExpectations(deadLetters: 2)) == ["deadLetters"])
        #expect(Self.failed(ScenarioExpectations(delivered: 100)) == ["delivered:main"])
        #expect(Self.failed(ScenarioExpectations(dropped: 1)) == ["dropped"])
    }

    @Test func aDrainThatNeverHappenedFailsAndSaysSo() {
        let never = SimulationDrain(recoveredAt: 10, seconds: nil, emptied: false)
        let checks = ExpectationCheck.check(ScenarioExpectations(drainedWithinSeconds: 60), totals: Self.totals, drain: never)
        #expect(checks.map(\.holds) == [false])
        #expect(checks.first?.detail.contains("not drained") == true)
    }

    @Test func anUnknownDepthFailsMaxDepth() {
        var totals = Self.totals
        totals.maxDepth = nil
        let checks = ExpectationCheck.check(ScenarioExpectations(maxDepth: 1_000_000), totals: totals, drain: Self.drain)
        #expect(checks.map(\.holds) == [false])
    }

    /// Poison events the ingest refused never became dead letters: a dead-letter count that
    /// matches anyway is no evidence, and the check fails saying why.
    @Test func deadLettersFailWhenPoisonEventsWereNeverAccepted() {
        var totals = Self.totals
        totals.poisonRefused = 60
        let checks = ExpectationCheck.check(ScenarioExpectations(deadLetters: 1), totals: totals, drain: Self.drain)
        #expect(checks.map(\.holds) == [false])
        #expect(checks.first?.detail.contains("60 poison events were refused at ingest") == true, "\(checks)")
        totals.poisonRefused = 0
        #expect(ExpectationCheck.check(ScenarioExpectations(deadLetters: 1), totals: totals, drain: Self.drain).map(\.holds) == [true])
    }

    @Test func eachDestinationIsCheckedOnItsOwn() {
        let destinations = [
            SimulationDestination(name: "api", delivered: 99, deadLetters: 1, maxDepth: 40, drainSeconds: 0.5),
            SimulationDestination(name: "warehouse", delivered: 99, deadLetters: 1, maxDepth: 50, drainSeconds: nil),
        ]
        let expect = ScenarioExpectations(destinations: [
            "api": ScenarioDestinationExpectations(maxDepth: 40, drainedWithinSeconds: 0.5, deadLetters: 1, delivered: 99),
            "warehouse": ScenarioDestinationExpectations(maxDepth: 49, drainedWithinSeconds: 60, deadLetters: 0),
            "gone": ScenarioDestinationExpectations(deadLetters: 0),
        ])
        let checks = ExpectationCheck.check(expect, totals: Self.totals, drain: Self.drain, destinations: destinations)
        #expect(checks.filter { !$0.holds }.map(\.name) == [
            "destinations.gone", "destinations.warehouse.maxDepth", "destinations.warehouse.drainedWithinSeconds",
            "destinations.warehouse.deadLetters",
        ])
        #expect(checks.filter(\.holds).count == 4, "api holds at each edge")
        #expect(checks.first { $0.name == "destinations.warehouse.drainedWithinSeconds" }?.detail.contains("warehouse not drained") == true)
    }
}

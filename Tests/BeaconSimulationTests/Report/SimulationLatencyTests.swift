import BeaconSimulation
import Testing

/// Latency percentiles by nearest rank, over what can be measured: none is unknown, a
/// negative difference (a clock step) is 0, what is not finite is left out.
@Suite struct SimulationLatencyTests {
    @Test func nearestRankPercentiles() throws {
        let latency = try #require(SimulationLatency(seconds: (1...100).map(Double.init).shuffled()))
        #expect(latency.p50 == 50 && latency.p90 == 90 && latency.p99 == 99 && latency.max == 100 && latency.events == 100)
        let one = try #require(SimulationLatency(seconds: [0.25]))
        #expect(one.p50 == 0.25 && one.p99 == 0.25 && one.max == 0.25)
        let two = try #require(SimulationLatency(seconds: [1, 9]))
        #expect(two.p50 == 1 && two.p90 == 9)
    }

    @Test func whatCannotBeMeasuredIsNotMeasured() throws {
        #expect(SimulationLatency(seconds: []) == nil)
        #expect(SimulationLatency(seconds: [.nan, .infinity, -.infinity]) == nil)
        let latency = try #require(SimulationLatency(seconds: [-0.004, .nan, 2, 1e300]))
        #expect(latency.events == 3 && latency.p50 == 2 && latency.max == 1e300)
        #expect(try #require(SimulationLatency(seconds: [-1])).max == 0)
    }

    @Test func expectationsOnLatencyHoldAtTheirEdge() {
        let destinations = [
            SimulationDestination(
                name: "api", delivered: 10, deadLetters: 0, maxDepth: 1, drainSeconds: 0,
                latency: SimulationLatency(p50: 0.2, p90: 0.5, p99: 1.5, max: 2, events: 10)),
            SimulationDestination(name: "warehouse", delivered: 0, deadLetters: 0, maxDepth: 1, drainSeconds: 0, latency: nil),
        ]
        let expect = ScenarioExpectations(
            latencyP99Seconds: 1.5,
            destinations: ["api": ScenarioDestinationExpectations(latencyP50Seconds: 0.1, latencyP99Seconds: 1.5)])
        let checks = ExpectationCheck.check(
            expect, totals: SimulationTotals(), drain: SimulationDrain(recoveredAt: 0, seconds: 0, emptied: true),
            destinations: destinations)
        #expect(checks.filter { !$0.holds }.map(\.name) == ["latencyP99Seconds:warehouse", "destinations.api.latencyP50Seconds"])
        #expect(checks.first { $0.name == "latencyP99Seconds:warehouse" }?.detail.contains("unknown (no tracked event stored)") == true)
        #expect(checks.filter(\.holds).map(\.name) == ["latencyP99Seconds:api", "destinations.api.latencyP99Seconds"])
    }
}

/// What `beacon simulate` found: per step, in total, how the final drain went, and every
/// invariant and expectation with whether it held. Printed as text or JSON.
public struct SimulationReport: Sendable, Hashable, Codable {
    /// The scenario's name, its seed and time scale.
    public var scenario: String
    public var seed: UInt64
    public var timeScale: Double
    /// Wall-clock seconds the run took, from the first step to the end of the drain.
    public var seconds: Double
    public var steps: [StepReport]
    public var totals: SimulationTotals
    public var drain: SimulationDrain
    /// Each destination's figures, in the collectors' order.
    public var destinations: [SimulationDestination]
    public var invariants: [SimulationCheck]
    public var expectations: [SimulationCheck]
    /// Depth and rates over time, with the steps: what the chart draws.
    public var timeline: SimulationTimeline

    public init(
        scenario: String, seed: UInt64, timeScale: Double, seconds: Double, steps: [StepReport], totals: SimulationTotals,
        drain: SimulationDrain, invariants: [SimulationCheck], expectations: [SimulationCheck],
        timeline: SimulationTimeline, destinations: [SimulationDestination] = []
    ) {
        self.scenario = scenario
        self.seed = seed
        self.timeScale = timeScale
        self.seconds = seconds
        self.steps = steps
        self.totals = totals
        self.drain = drain
        self.invariants = invariants
        self.expectations = expectations
        self.timeline = timeline
        self.destinations = destinations
    }

    /// Whether every invariant and every expectation held.
    public var passed: Bool { failures.isEmpty }

    /// The checks that did not hold, invariants first.
    public var failures: [SimulationCheck] { (invariants + expectations).filter { !$0.holds } }
}

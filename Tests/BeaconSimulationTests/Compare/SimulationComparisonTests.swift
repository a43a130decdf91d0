import BeaconSimulation
import Testing

/// The comparison's verdicts: a variant is named best for a figure only when its whole
/// range lies below every other's; overlapping ranges are said to be no difference; a
/// figure a run does not know is unknown, never a win.
@Suite struct SimulationComparisonTests {
    static func variant(_ batch: Int, drains: [Double?], requests: Int = 100) throws -> SimulationComparison.Variant {
        let setting = try ScenarioEngineSetting.parse(assignment: "engine.batchSize=\(batch)")
        var engine = ScenarioEngine()
        setting.apply(to: &engine)
        let runs = drains.enumerated().map { index, drain in
            SimulationComparison.Run(
                seed: UInt64(index), report: report(drain: drain, requests: requests), directory: "/tmp/v\(batch)-\(index)")
        }
        return SimulationComparison.Variant(ScenarioVariant(settings: [setting], engine: engine), runs: runs)
    }

    static func report(drain: Double?, requests: Int) -> SimulationReport {
        SimulationReport(
            scenario: "s", seed: 1, timeScale: 1, seconds: 10, steps: [],
            totals: SimulationTotals(tracked: 1_000, delivered: ["main": 1_000], requests: requests, bytesSent: 400_000, maxDepth: 900),
            drain: SimulationDrain(recoveredAt: 5, seconds: drain, emptied: drain != nil), invariants: [], expectations: [],
            timeline: SimulationTimeline(samples: [], steps: [], marks: []))
    }

    @Test func aRangeWhollyBelowTheOthersIsNamedBest() throws {
        let comparison = SimulationComparison(
            scenario: "s",
            variants: [
                try Self.variant(50, drains: [6.1, 6.4, 6.2], requests: 40),
                try Self.variant(200, drains: [0.7, 0.9, 0.8], requests: 12),
                try Self.variant(500, drains: [1.0, 1.3, 1.1], requests: 6),
            ])
        let drain = try #require(comparison.verdicts.first { $0.figure == .drainSeconds })
        #expect(drain.best == "b200")
        #expect(drain.text == "drainSeconds: b200 drains fastest: 0.8 s [0.7–0.9] vs b500 1.1 s [1–1.3]", "\(drain.text)")
        let requests = try #require(comparison.verdicts.first { $0.figure == .requestsPerEvent })
        // Each run of a variant sent the same requests: a range of one value, below the next.
        #expect(requests.best == "b500", "\(requests.text)")
        let bytes = try #require(comparison.verdicts.first { $0.figure == .bytesPerEvent })
        #expect(bytes.best == nil && bytes.text.contains("no difference beyond the spread"), "\(bytes.text)")
        #expect(comparison.verdicts.first { $0.figure == .latencyP99Seconds }?.text == "latencyP99Seconds: unknown for every variant (no run measured it)")
        #expect(comparison.passed)
        #expect(comparison.text.contains("b200") && comparison.text.contains("0.8 [0.7–0.9]"), "\(comparison.text)")
        #expect(comparison.text.contains("PASSED: all 9 runs"))
    }

    /// Every rival counts, not only the second-best median: a wide range that reaches
    /// below the leader's top keeps the leader from being named.
    @Test func aWideRivalBelowTheLeadersTopMeansNoBest() throws {
        let comparison = SimulationComparison(
            scenario: "s",
            variants: [
                try Self.variant(500, drains: [0.2, 0.9, 1.3]), try Self.variant(200, drains: [0.6, 1.7, 2.7]),
                try Self.variant(100, drains: [1.4, 1.5, 1.6]),
            ])
        let drain = try #require(comparison.verdicts.first { $0.figure == .drainSeconds })
        #expect(drain.best == nil, "\(drain.text)")
        let clear = SimulationComparison(
            scenario: "s",
            variants: [
                try Self.variant(500, drains: [0.2, 0.3]), try Self.variant(100, drains: [1.4, 1.6]),
                try Self.variant(200, drains: [0.6, 2.7]),
            ])
        let named = try #require(clear.verdicts.first { $0.figure == .drainSeconds })
        #expect(named.best == "b500")
        #expect(named.text.hasSuffix("vs b200 1.65 s [0.6–2.7]"), "the rival reaching lowest: \(named.text)")
    }

    @Test func overlappingRangesAreNoDifference() throws {
        let comparison = SimulationComparison(
            scenario: "s", variants: [try Self.variant(200, drains: [0.7, 1.2]), try Self.variant(500, drains: [1.0, 1.3])])
        let drain = try #require(comparison.verdicts.first { $0.figure == .drainSeconds })
        #expect(drain.best == nil)
        #expect(drain.text.hasPrefix("drainSeconds: no difference beyond the spread between b200"), "\(drain.text)")
        #expect(drain.text.contains("b500"))
        #expect(!drain.text.contains("behind"), "nothing is behind two overlapping variants")
        // A third variant behind both is named as such: what to avoid is an answer too.
        let three = SimulationComparison(
            scenario: "s",
            variants: [
                try Self.variant(200, drains: [0.7, 1.2]), try Self.variant(500, drains: [1.0, 1.3]),
                try Self.variant(50, drains: [6.1, 6.3]),
            ])
        let verdict = try #require(three.verdicts.first { $0.figure == .drainSeconds })
        #expect(verdict.best == nil)
        #expect(verdict.text.hasSuffix("; behind them beyond the spread: b50 6.2 s [6.1–6.3]"), "\(verdict.text)")
    }

    @Test func aDrainThatNeverHappenedIsUnknownNotAWin() throws {
        let comparison = SimulationComparison(
            scenario: "s", variants: [try Self.variant(50, drains: [nil, 0.1]), try Self.variant(500, drains: [2.0, 2.1])])
        let drain = try #require(comparison.verdicts.first { $0.figure == .drainSeconds })
        #expect(drain.best == "b500", "the only variant whose every run drained")
        #expect(drain.text.contains("unknown for b50"), "\(drain.text)")
        #expect(comparison.variants[0].spread(.drainSeconds) == nil)
    }

    @Test func oneRunEachSaysThereIsNoSpread() throws {
        let comparison = SimulationComparison(
            scenario: "s", variants: [try Self.variant(50, drains: [3]), try Self.variant(500, drains: [1])])
        #expect(comparison.text.contains("one run each: no spread to judge by"))
        #expect(comparison.verdicts.first { $0.figure == .drainSeconds }?.best == "b500")
    }

    @Test func settingsAreEchoedWhole() throws {
        let variant = try Self.variant(500, drains: [1])
        #expect(variant.settings["batchSize"] == "500" && variant.settings["policy"] == ScenarioEngine.defaultPolicy)
        #expect(variant.settings.keys.sorted() == ["batchSize", "durability", "maxBytes", "maxConcurrentRequests", "maxEvents", "policy"])
        #expect(variant.varied == ["batchSize=500"])
    }
}

/// `deliveredPerSecond`: the one figure where higher is better, measured over the drain's
/// own window of the timeline (the samples' delivered rates times the time each covers).
@Suite struct SimulationComparisonDeliveredRateTests {
    /// A run that recovered at 5 s and drained in `drain` seconds, the collectors storing
    /// `rate` events a second from 5 s on (and 9,999 a second before: outside the window).
    static func run(_ rate: Double, drain: Double = 2, seed: UInt64) -> SimulationComparison.Run {
        var report = SimulationComparisonTests.report(drain: drain, requests: 10)
        let times = stride(from: 4.0, through: 5.0 + drain + 1, by: 0.1).map { ($0 * 10).rounded() / 10 }
        report.timeline.samples = times.map { time in
            .init(time: time, depth: 0, trackedPerSecond: 0, deliveredPerSecond: time <= 5.0 ? 9_999 : rate)
        }
        return SimulationComparison.Run(seed: seed, report: report, directory: "/tmp/r")
    }

    static func variant(_ batch: Int, rates: [Double]) throws -> SimulationComparison.Variant {
        let setting = try ScenarioEngineSetting.parse(assignment: "engine.batchSize=\(batch)")
        var engine = ScenarioEngine()
        setting.apply(to: &engine)
        return SimulationComparison.Variant(
            ScenarioVariant(settings: [setting], engine: engine),
            runs: rates.enumerated().map { Self.run($1, seed: UInt64($0)) })
    }

    @Test func theRateIsTheDrainWindowsOwn() throws {
        let run = Self.run(1_250, seed: 1)
        let measured = try #require(run.figures[.deliveredPerSecond])
        #expect(abs(measured - 1_250) < 1e-6, "\(measured)")
        // No drain, no rate: unknown, not zero.
        let undrained = SimulationComparison.Run(
            seed: 1, report: SimulationComparisonTests.report(drain: nil, requests: 10), directory: "/tmp/r")
        #expect(undrained.figures[.deliveredPerSecond] == nil)
        // Hostile timelines: no sample in the window, or rates that are not numbers.
        var timeline = SimulationTimeline(samples: [.init(time: .nan, depth: nil, trackedPerSecond: .infinity, deliveredPerSecond: .nan)])
        #expect(SimulationComparison.Run.deliveredPerSecond(timeline, from: 5, for: 2) == nil)
        timeline.samples = [.init(time: 0, depth: 0, trackedPerSecond: 0, deliveredPerSecond: 1e300), .init(time: 1, depth: 0, trackedPerSecond: 0, deliveredPerSecond: 1e300)]
        #expect(SimulationComparison.Run.deliveredPerSecond(timeline, from: 5, for: 2) == nil)
        #expect(SimulationComparison.Run.deliveredPerSecond(timeline, from: 0, for: .infinity) == nil)
        #expect(SimulationComparison.Run.deliveredPerSecond(timeline, from: 0, for: -1) == nil)
    }

    @Test func theHighestRateWinsWhenItsRangeIsAboveEveryOther() throws {
        let comparison = SimulationComparison(
            scenario: "s",
            variants: [
                try Self.variant(50, rates: [400, 450, 420]), try Self.variant(500, rates: [1_000, 1_100, 1_050]),
                try Self.variant(200, rates: [700, 990, 800]),
            ])
        let verdict = try #require(comparison.verdicts.first { $0.figure == .deliveredPerSecond })
        #expect(verdict.best == "b500", "\(verdict.text)")
        #expect(
            verdict.text == "deliveredPerSecond: b500 delivers the most events per second while draining: 1050 events/s [1000–1100] vs b200 800 events/s [700–990]",
            "\(verdict.text)")
        #expect(comparison.text.contains("drain ev/s"))
        // A rival reaching into the leader's range: no best, and the variant behind both named.
        let close = SimulationComparison(
            scenario: "s",
            variants: [try Self.variant(500, rates: [1_000, 1_100, 1_050]), try Self.variant(200, rates: [700, 1_020, 800]),
                       try Self.variant(50, rates: [400, 450, 420])])
        let tie = try #require(close.verdicts.first { $0.figure == .deliveredPerSecond })
        #expect(tie.best == nil, "\(tie.text)")
        #expect(tie.text.contains("no difference beyond the spread between b500") && tie.text.hasSuffix("behind them beyond the spread: b50 420 events/s [400–450]"),
                "\(tie.text)")
    }
}

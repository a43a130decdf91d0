import Foundation

/// A scenario's variants side by side: each variant's runs (one per seed), the figures
/// that tell settings apart, their medians and spreads, and for each figure which variant
/// is best, when the spread allows saying so. Pure: reports in, comparison out.
///
/// ```swift
/// let comparison = SimulationComparison(scenario: scenario.name, variants: [(variant, runs), …])
/// print(comparison.text)   // the table, then one verdict per figure
/// ```
public struct SimulationComparison: Sendable, Hashable, Codable {
    /// The figures compared; each is lower-is-better but ``deliveredPerSecond``.
    public enum Figure: String, Sendable, Hashable, Codable, CodingKeyRepresentable, CaseIterable {
        /// Seconds from the last recovery until every event tracked before it had left the queue.
        case drainSeconds
        /// Events stored at the collectors per second while the queue drained: those stored
        /// from the last recovery until it had drained, over the drain's seconds (higher is better).
        case deliveredPerSecond
        /// Requests sent per event tracked.
        case requestsPerEvent
        /// Bytes sent per event tracked.
        case bytesPerEvent
        /// The deepest queue sampled.
        case maxDepth
        /// Seconds from `track` to the collector's store for 99 in 100 events, at the
        /// slowest destination.
        case latencyP99Seconds

        /// How the verdict says a variant wins it.
        var superlative: String {
            switch self {
            case .drainSeconds: "drains fastest"
            case .deliveredPerSecond: "delivers the most events per second while draining"
            case .requestsPerEvent: "sends the fewest requests per event"
            case .bytesPerEvent: "sends the fewest bytes per event"
            case .maxDepth: "keeps the shallowest queue"
            case .latencyP99Seconds: "delivers soonest (p99, track to stored)"
            }
        }

        /// The value in words with its unit.
        func format(_ value: Double) -> String {
            switch self {
            case .drainSeconds: Self.short(value) + " s"
            case .deliveredPerSecond: Self.short(value) + " events/s"
            case .requestsPerEvent: Self.short(value) + " req/event"
            case .bytesPerEvent: Self.short(value) + " B/event"
            case .maxDepth: SimulationFormat.amount(value.rounded())
            case .latencyP99Seconds: Self.short(value) + " s"
            }
        }

        /// Whether a higher value is the better one.
        public var higherIsBetter: Bool { self == .deliveredPerSecond }

        /// Three significant digits or so: 0.0213, 2.33, 412.
        static func short(_ value: Double) -> String {
            guard value.isFinite else { return "?" }
            if value == 0 { return "0" }
            let magnitude = abs(value)
            let digits = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : magnitude >= 0.1 ? 3 : 4
            var text = String(format: "%.\(digits)f", value)
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            return text
        }
    }

    /// One run of one variant.
    public struct Run: Sendable, Hashable, Codable {
        public var seed: UInt64
        /// Whether every invariant and expectation held.
        public var passed: Bool
        /// The checks that did not hold.
        public var failures: [String]
        /// Where the run's stores, logs, report and chart are.
        public var directory: String
        /// Each figure's value; a figure left out is unknown (a drain that never happened).
        public var figures: [Figure: Double]
        public var tracked: Int
        public var refused: Int
        public var deadLetters: Int
        public var retries: Int
        /// Distinct events stored at each collector.
        public var delivered: [String: Int]

        /// The figures of `report`, a run with `seed` whose files are in `directory`.
        public init(seed: UInt64, report: SimulationReport, directory: String) {
            self.seed = seed
            passed = report.passed
            failures = report.failures.map(\.name)
            self.directory = directory
            let totals = report.totals
            let events = Double(max(1, totals.tracked))
            var figures: [Figure: Double] = [
                .requestsPerEvent: Double(totals.requests) / events, .bytesPerEvent: Double(totals.bytesSent) / events,
            ]
            if let drain = report.drain.seconds {
                figures[.drainSeconds] = drain
                if let rate = Self.deliveredPerSecond(report.timeline, from: report.drain.recoveredAt, for: drain) {
                    figures[.deliveredPerSecond] = rate
                }
            }
            if let depth = totals.maxDepth { figures[.maxDepth] = Double(depth) }
            if let slowest = report.destinations.compactMap({ $0.latency?.p99 }).max() { figures[.latencyP99Seconds] = slowest }
            self.figures = figures
            tracked = totals.tracked
            refused = totals.inDoubt
            deadLetters = totals.deadLetters
            retries = totals.retries
            delivered = totals.delivered
        }

        /// Events stored per second over `seconds` from `start`: each sample's delivered rate
        /// times the part of its interval inside the window, over the window; `nil` for an
        /// empty window or no sample in it.
        public static func deliveredPerSecond(_ timeline: SimulationTimeline, from start: Double, for seconds: Double) -> Double? {
            guard start.isFinite, seconds.isFinite, seconds > 0 else { return nil }
            let end = start + seconds
            let samples = timeline.samples.filter { $0.time.isFinite && $0.deliveredPerSecond.isFinite }.sorted { $0.time < $1.time }
            var stored = 0.0
            var covered = 0.0
            for (previous, sample) in zip(samples, samples.dropFirst()) {
                let low = max(previous.time, start), high = min(sample.time, end)
                guard high > low else { continue }
                stored += max(0, sample.deliveredPerSecond) * (high - low)
                covered += high - low
            }
            return covered > 0 ? stored / seconds : nil
        }
    }

    /// One variant and its runs.
    public struct Variant: Sendable, Hashable, Codable {
        /// Its settings' labels (`b500 every 5s`), or `base`.
        public var name: String
        /// The settings the matrix or `--set` varied, `key=value`.
        public var varied: [String]
        /// Every engine setting its runs used, by key.
        public var settings: [String: String]
        public var runs: [Run]

        /// The variant `variant`, run once per element of `runs`.
        public init(_ variant: ScenarioVariant, runs: [Run]) {
            name = variant.name
            varied = variant.settings.map(\.assignment)
            let engine = variant.engine
            settings = [
                "policy": engine.policy, "batchSize": "\(engine.batchSize)",
                "maxConcurrentRequests": "\(engine.maxConcurrentRequests)",
                "maxEvents": engine.maxEvents.map { "\($0)" } ?? "default", "maxBytes": engine.maxBytes.map { "\($0)" } ?? "default",
                "durability": engine.durability.rawValue,
            ]
            self.runs = runs
        }

        /// The spread of `figure` over the runs; nil when a run does not know it.
        public func spread(_ figure: Figure) -> Spread? {
            let values = runs.compactMap { $0.figures[figure] }
            guard !values.isEmpty, values.count == runs.count else { return nil }
            return Spread(values)
        }
    }

    /// A figure's median over a variant's runs, with the lowest and highest.
    public struct Spread: Sendable, Hashable, Codable {
        public var median: Double
        public var low: Double
        public var high: Double
        public var count: Int

        /// The spread of `values` (not empty).
        public init(_ values: [Double]) {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            low = sorted.first ?? 0
            high = sorted.last ?? 0
            count = sorted.count
        }
    }

    /// What one figure says about the variants.
    public struct Verdict: Sendable, Hashable, Codable {
        public var figure: Figure
        /// The variant that is best beyond the spread, if one is.
        public var best: String?
        /// The verdict in words.
        public var text: String
    }

    public var scenario: String
    public var variants: [Variant]
    public var verdicts: [Verdict]

    /// Whether every run of every variant passed.
    public var passed: Bool { variants.allSatisfy { $0.runs.allSatisfy(\.passed) } }

    /// Compares `variants`.
    public init(scenario: String, variants: [Variant]) {
        self.scenario = scenario
        self.variants = variants
        verdicts = Figure.allCases.map { Self.verdict($0, variants) }
    }

    /// The best variant of `figure` when its spread lies wholly below every other's (named
    /// against the rival whose range reaches lowest); otherwise that no variant stands out,
    /// and which are behind the leaders beyond the spread.
    static func verdict(_ figure: Figure, _ variants: [Variant]) -> Verdict {
        let known = variants.compactMap { variant in variant.spread(figure).map { (variant.name, $0) } }
        let unknown = variants.filter { $0.spread(figure) == nil }.map(\.name)
        let missing = unknown.isEmpty ? "" : "; unknown for \(unknown.joined(separator: ", ")) (a run without it)"
        guard !known.isEmpty else {
            return Verdict(figure: figure, best: nil, text: "\(figure.rawValue): unknown for every variant (no run measured it)")
        }
        guard known.count >= 2 || (known.count == 1 && !unknown.isEmpty) else {
            return Verdict(figure: figure, best: nil, text: "\(figure.rawValue): one variant, nothing to compare\(missing)")
        }
        // Ranked and compared as "lower is better": a higher-is-better figure is negated here
        // and described with its own values.
        func oriented(_ spread: Spread) -> (median: Double, low: Double, high: Double) {
            figure.higherIsBetter ? (-spread.median, -spread.high, -spread.low) : (spread.median, spread.low, spread.high)
        }
        let ranked = known.sorted { oriented($0.1).median < oriented($1.1).median }
        let (bestName, best) = ranked[0]
        let bestHigh = oriented(best).high
        func cell(_ name: String, _ spread: Spread) -> String { "\(name) \(Self.describe(spread, figure))" }
        guard ranked.count >= 2 else {
            return Verdict(figure: figure, best: bestName, text: "\(figure.rawValue): \(bestName) \(figure.superlative): \(Self.describe(best, figure))\(missing)")
        }
        // The nearest rival is the one whose range reaches nearest, not the second median.
        let rivals = ranked.dropFirst()
        if rivals.allSatisfy({ bestHigh < oriented($0.1).low }),
            let (secondName, second) = rivals.min(by: { oriented($0.1).low < oriented($1.1).low })
        {
            return Verdict(
                figure: figure, best: bestName,
                text: "\(figure.rawValue): \(bestName) \(figure.superlative): \(Self.describe(best, figure)) vs \(cell(secondName, second))\(missing)")
        }
        let tied = ranked.filter { oriented($0.1).low <= bestHigh }.map { cell($0.0, $0.1) }
        // What the user can still act on: the variants behind the leaders beyond the spread.
        let behind = ranked.filter { oriented($0.1).low > bestHigh }.map { cell($0.0, $0.1) }
        let worse = behind.isEmpty ? "" : "; behind them beyond the spread: \(behind.joined(separator: ", "))"
        return Verdict(
            figure: figure, best: nil,
            text: "\(figure.rawValue): no difference beyond the spread between \(tied.joined(separator: ", "))\(worse)\(missing)")
    }

    /// `2.33 s [2.30–2.36]`, or `2.33 s` for one run.
    static func describe(_ spread: Spread, _ figure: Figure) -> String {
        let median = figure.format(spread.median)
        guard spread.count > 1 else { return median }
        return "\(median) [\(Figure.short(spread.low))–\(Figure.short(spread.high))]"
    }
}

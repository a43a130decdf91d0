/// A scenario's own expectations, checked against what the run found. Pure: the
/// expectations and the run's figures in, one check per expectation out, in the order
/// the format lists them.
public enum ExpectationCheck {
    /// A check per expectation the scenario sets.
    public static func check(
        _ expect: ScenarioExpectations, totals: SimulationTotals, drain: SimulationDrain,
        destinations: [SimulationDestination] = []
    ) -> [SimulationCheck] {
        var checks: [SimulationCheck] = []
        /// At most `limit` events deep (unknown depth fails).
        func depth(_ name: String, _ depth: Int?, _ limit: Int?, _ what: String) {
            guard let limit else { return }
            checks.append(
                SimulationCheck(
                    name: name, holds: depth.map { $0 <= limit } ?? false,
                    detail: "\(what) \(depth.map(SimulationFormat.count) ?? "unknown (the engine never answered)"); expected at most \(SimulationFormat.count(limit))"))
        }
        /// Drained within `limit` seconds of the last recovery (never drained fails).
        func drained(_ name: String, _ seconds: Double?, _ limit: Double?, _ who: String) {
            guard let limit else { return }
            checks.append(
                SimulationCheck(
                    name: name, holds: seconds.map { $0 <= limit } ?? false,
                    detail: "\(who)\(seconds.map { "drained \(SimulationFormat.decimal($0)) s" } ?? "not drained") after the last recovery; expected within \(SimulationFormat.seconds(limit))"))
        }
        /// A latency percentile within `limit` seconds (no events measured fails).
        func latency(_ name: String, _ value: Double?, _ limit: Double?, _ what: String) {
            guard let limit else { return }
            checks.append(
                SimulationCheck(
                    name: name, holds: value.map { $0 <= limit } ?? false,
                    detail: "\(what): \(value.map { SimulationFormat.seconds($0) } ?? "unknown (no tracked event stored)"); expected within \(SimulationFormat.seconds(limit))"))
        }
        depth("maxDepth", totals.maxDepth, expect.maxDepth, "deepest queue sampled")
        drained("drainedWithinSeconds", drain.seconds, expect.drainedWithinSeconds, "")
        func exactly(_ name: String, _ actual: Int, _ expected: Int?, _ what: String) {
            guard let expected else { return }
            checks.append(
                SimulationCheck(
                    name: name, holds: actual == expected,
                    detail: "\(what): \(SimulationFormat.count(actual)); expected \(SimulationFormat.count(expected))"))
        }
        if let expected = expect.deadLetters {
            // Poison events the engine never took cannot become dead letters: the count is
            // then not evidence of anything, and the check fails rather than pass by absence.
            let untested = totals.poisonRefused > 0
                ? "; \(SimulationFormat.count(totals.poisonRefused)) poison events were refused at ingest and never entered the queue, so the run did not test them"
                : ""
            checks.append(
                SimulationCheck(
                    name: "deadLetters", holds: totals.deadLetters == expected && totals.poisonRefused == 0,
                    detail: "dead letters: \(SimulationFormat.count(totals.deadLetters)); expected \(SimulationFormat.count(expected))\(untested)"))
        }
        exactly("duplicatesStored", totals.duplicatesStored, expect.duplicatesStored, "events stored twice")
        if let limit = expect.duplicatesSent {
            checks.append(
                SimulationCheck(
                    name: "duplicatesSent", holds: totals.duplicatesSent <= limit,
                    detail: "redeliveries: \(SimulationFormat.count(totals.duplicatesSent)); expected at most \(SimulationFormat.count(limit))"))
        }
        exactly("dropped", totals.dropped, expect.dropped, "events dropped")
        if let expected = expect.delivered {
            for (name, count) in totals.delivered.sorted(by: { $0.key < $1.key }) {
                exactly("delivered:\(name)", count, expected, "events stored at \(name)")
            }
        }
        exactly("refused", totals.inDoubt, expect.refused, "events refused (posted, not acknowledged)")
        if let limit = expect.latencyP99Seconds {
            for destination in destinations {
                latency(
                    "latencyP99Seconds:\(destination.name)", destination.latency?.p99, limit,
                    "track to stored at \(destination.name), p99")
            }
        }
        for (name, expected) in expect.destinations.sorted(by: { $0.key < $1.key }) {
            guard let destination = destinations.first(where: { $0.name == name }) else {
                checks.append(SimulationCheck(name: "destinations.\(name)", holds: false, detail: "the run has no figures for \(name)"))
                continue
            }
            depth("destinations.\(name).maxDepth", destination.maxDepth, expected.maxDepth, "most events pending for \(name)")
            drained("destinations.\(name).drainedWithinSeconds", destination.drainSeconds, expected.drainedWithinSeconds, "\(name) ")
            exactly("destinations.\(name).deadLetters", destination.deadLetters, expected.deadLetters, "dead letters for \(name)")
            exactly("destinations.\(name).delivered", destination.delivered, expected.delivered, "events stored at \(name)")
            latency(
                "destinations.\(name).latencyP50Seconds", destination.latency?.p50, expected.latencyP50Seconds,
                "track to stored at \(name), p50")
            latency(
                "destinations.\(name).latencyP99Seconds", destination.latency?.p99, expected.latencyP99Seconds,
                "track to stored at \(name), p99")
        }
        return checks
    }
}

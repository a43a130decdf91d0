extension SimulationComparison {
    /// The comparison for a terminal: one row per variant (each figure's median and, over
    /// several runs, its range), the verdicts, then which runs failed.
    public var text: String {
        var lines = ["\(scenario): \(variants.count) variants × \(variants.map(\.runs.count).max() ?? 0) runs", ""]
        var rows = [["variant", "passed", "drain s", "drain ev/s", "p99 s", "req/event", "B/event", "max depth", "dead", "retries"]]
        for variant in variants {
            func cell(_ figure: Figure) -> String {
                guard let spread = variant.spread(figure) else { return "?" }
                let median = Figure.short(spread.median)
                return spread.count > 1 ? "\(median) [\(Figure.short(spread.low))–\(Figure.short(spread.high))]" : median
            }
            let dead = variant.runs.map(\.deadLetters)
            let retries = variant.runs.map(\.retries)
            rows.append([
                SimulationFormat.clip(variant.name, to: 28), "\(variant.runs.filter(\.passed).count)/\(variant.runs.count)",
                cell(.drainSeconds), cell(.deliveredPerSecond), cell(.latencyP99Seconds), cell(.requestsPerEvent), cell(.bytesPerEvent), cell(.maxDepth),
                Self.range(dead), Self.range(retries),
            ])
        }
        lines += SimulationFormat.table(rows)
        lines.append("")
        for verdict in verdicts { lines.append(verdict.text) }
        if variants.allSatisfy({ $0.runs.count == 1 }) {
            lines.append("(one run each: no spread to judge by; --repeat 3 or more to know)")
        }
        lines.append("")
        let runs = variants.flatMap { variant in variant.runs.map { (variant.name, $0) } }
        let failed = runs.filter { !$0.1.passed }
        if failed.isEmpty {
            lines.append("PASSED: all \(runs.count) runs hold every check")
        } else {
            lines.append("FAILED: \(failed.count) of \(runs.count) runs did not hold every check")
            for (name, run) in failed {
                lines.append("  \(name), seed \(run.seed): \(run.failures.joined(separator: ", ")) (files in \(run.directory))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `3`, or `2–5` when the runs differ.
    static func range(_ values: [Int]) -> String {
        guard let low = values.min(), let high = values.max() else { return "-" }
        return low == high ? SimulationFormat.count(low) : "\(SimulationFormat.count(low))–\(SimulationFormat.count(high))"
    }
}

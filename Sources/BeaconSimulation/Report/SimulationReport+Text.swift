extension SimulationReport {
    /// The report as text for a terminal: a line per step, the totals, the drain, then
    /// every check (failed ones marked `FAIL`) and the verdict.
    public var text: String {
        var lines: [String] = []
        lines.append(
            "\(scenario)  (seed \(seed), time scale \(SimulationFormat.decimal(timeScale))×, \(SimulationFormat.decimal(seconds)) s)")
        lines.append("")
        let header = ["step", "secs", "tracked", "refused", "stored", "depth", "oldest", "retry", "split", "dead", "reqs", "sent", "drain"]
        var rows = [header]
        for step in steps {
            rows.append([
                SimulationFormat.clip(step.name, to: 16), SimulationFormat.decimal(step.seconds),
                SimulationFormat.count(step.tracked), SimulationFormat.count(step.refused),
                SimulationFormat.count(step.delivered), step.maxDepth.map(SimulationFormat.count) ?? "?",
                step.oldestPendingSeconds.map { SimulationFormat.decimal($0) + "s" } ?? "-",
                SimulationFormat.count(step.retries), SimulationFormat.count(step.splits), SimulationFormat.count(step.deadLetters),
                SimulationFormat.count(step.requests), SimulationFormat.bytes(step.bytesSent),
                step.drainSeconds.map { SimulationFormat.decimal($0) + "s" } ?? "-",
            ])
        }
        lines += SimulationFormat.table(rows)
        for step in steps where !step.actions.isEmpty {
            lines.append("  \(SimulationFormat.clip(step.name, to: 16)): \(step.actions.joined(separator: ", "))")
        }
        for step in steps {
            for warning in step.realTimeWarnings { lines.append("  \(SimulationFormat.clip(step.name, to: 16)): real time: \(warning)") }
        }
        for step in steps where step.refused > 0 {
            let all = step.tracked == 0 ? "all " : ""
            lines.append(
                "  \(SimulationFormat.clip(step.name, to: 16)): \(all)\(SimulationFormat.count(step.refused)) of \(SimulationFormat.count(step.tracked + step.refused)) events refused at ingest; they never entered the queue")
        }
        lines.append("")
        let delivered = totals.delivered.sorted { $0.key < $1.key }.map { "\($0.key) \(SimulationFormat.count($0.value))" }
        lines.append(
            "tracked \(SimulationFormat.count(totals.tracked)) (\(SimulationFormat.count(totals.poison)) poison), refused \(SimulationFormat.count(totals.inDoubt))\(totals.poisonRefused > 0 ? " (\(SimulationFormat.count(totals.poisonRefused)) poison)" : ""); stored: \(delivered.joined(separator: ", "))")
        lines.append(
            "dead letters \(SimulationFormat.count(totals.deadLetters)), dropped \(SimulationFormat.count(totals.dropped)), redeliveries \(SimulationFormat.count(totals.duplicatesSent)), stored twice \(SimulationFormat.count(totals.duplicatesStored))")
        lines.append(
            "retries \(SimulationFormat.count(totals.retries)), splits \(SimulationFormat.count(totals.splits)), requests \(SimulationFormat.count(totals.requests)) (\(SimulationFormat.bytes(totals.bytesSent))), max depth \(totals.maxDepth.map(SimulationFormat.count) ?? "unknown"), restarts \(totals.restarts)")
        let drained = drain.seconds.map { "drained \(SimulationFormat.decimal($0)) s after the last recovery (at \(SimulationFormat.decimal(drain.recoveredAt)) s)" }
            ?? "NOT drained after the last recovery (at \(SimulationFormat.decimal(drain.recoveredAt)) s)"
        lines.append(drained + (drain.emptied ? "; queue empty at the end" : "; events still queued at the end"))
        for destination in destinations {
            let drainedHere = destination.drainSeconds.map { "drained \(SimulationFormat.decimal($0)) s after it" } ?? "NOT drained"
            let latency = destination.latency.map {
                "; track to stored p50 \(SimulationFormat.seconds($0.p50)), p90 \(SimulationFormat.seconds($0.p90)), p99 \(SimulationFormat.seconds($0.p99)), max \(SimulationFormat.seconds($0.max))"
            } ?? ""
            lines.append(
                "  \(SimulationFormat.clip(destination.name, to: 40)): stored \(SimulationFormat.count(destination.delivered)), dead letters \(SimulationFormat.count(destination.deadLetters)), most pending \(destination.maxDepth.map(SimulationFormat.count) ?? "unknown"), \(drainedHere)\(latency)")
        }
        lines.append("")
        lines.append("invariants")
        for check in invariants { lines.append(SimulationFormat.check(check)) }
        if !expectations.isEmpty {
            lines.append("expectations")
            for check in expectations { lines.append(SimulationFormat.check(check)) }
        }
        lines.append("")
        let failed = failures.count
        let total = invariants.count + expectations.count
        lines.append(failed == 0 ? "PASSED: all \(total) checks hold" : "FAILED: \(failed) of \(total) checks did not hold")
        return lines.joined(separator: "\n")
    }
}

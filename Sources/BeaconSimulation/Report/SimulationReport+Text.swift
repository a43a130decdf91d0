extension SimulationReport {
    /// The report as text for a terminal: a line per step, the totals, the drain, then
    /// every check (failed ones marked `FAIL`) and the verdict.
    public var text: String {
        var lines: [String] = []
        lines.append(
            "\(scenario)  (seed \(seed), time scale \(ReportFormat.decimal(timeScale))×, \(ReportFormat.decimal(seconds)) s)")
        lines.append("")
        let header = ["step", "secs", "tracked", "refused", "stored", "depth", "oldest", "retry", "split", "dead", "reqs", "sent", "drain"]
        var rows = [header]
        for step in steps {
            rows.append([
                ReportFormat.clip(step.name, to: 16), ReportFormat.decimal(step.seconds),
                ReportFormat.count(step.tracked), ReportFormat.count(step.refused),
                ReportFormat.count(step.delivered), step.maxDepth.map(ReportFormat.count) ?? "?",
                step.oldestPendingSeconds.map { ReportFormat.decimal($0) + "s" } ?? "-",
                ReportFormat.count(step.retries), ReportFormat.count(step.splits), ReportFormat.count(step.deadLetters),
                ReportFormat.count(step.requests), ReportFormat.bytes(step.bytesSent),
                step.drainSeconds.map { ReportFormat.decimal($0) + "s" } ?? "-",
            ])
        }
        lines += ReportFormat.table(rows)
        for step in steps where !step.actions.isEmpty {
            lines.append("  \(ReportFormat.clip(step.name, to: 16)): \(step.actions.joined(separator: ", "))")
        }
        lines.append("")
        let delivered = totals.delivered.sorted { $0.key < $1.key }.map { "\($0.key) \(ReportFormat.count($0.value))" }
        lines.append(
            "tracked \(ReportFormat.count(totals.tracked)) (\(ReportFormat.count(totals.poison)) poison), refused \(ReportFormat.count(totals.inDoubt)); stored: \(delivered.joined(separator: ", "))")
        lines.append(
            "dead letters \(ReportFormat.count(totals.deadLetters)), dropped \(ReportFormat.count(totals.dropped)), redeliveries \(ReportFormat.count(totals.duplicatesSent)), stored twice \(ReportFormat.count(totals.duplicatesStored))")
        lines.append(
            "retries \(ReportFormat.count(totals.retries)), splits \(ReportFormat.count(totals.splits)), requests \(ReportFormat.count(totals.requests)) (\(ReportFormat.bytes(totals.bytesSent))), max depth \(totals.maxDepth.map(ReportFormat.count) ?? "unknown"), restarts \(totals.restarts)")
        let drained = drain.seconds.map { "drained \(ReportFormat.decimal($0)) s after the last recovery (at \(ReportFormat.decimal(drain.recoveredAt)) s)" }
            ?? "NOT drained after the last recovery (at \(ReportFormat.decimal(drain.recoveredAt)) s)"
        lines.append(drained + (drain.emptied ? "; queue empty at the end" : "; events still queued at the end"))
        lines.append("")
        lines.append("invariants")
        for check in invariants { lines.append(ReportFormat.check(check)) }
        if !expectations.isEmpty {
            lines.append("expectations")
            for check in expectations { lines.append(ReportFormat.check(check)) }
        }
        lines.append("")
        let failed = failures.count
        let total = invariants.count + expectations.count
        lines.append(failed == 0 ? "PASSED: all \(total) checks hold" : "FAILED: \(failed) of \(total) checks did not hold")
        return lines.joined(separator: "\n")
    }
}

import Beacon

extension Renderer {
    /// Totals (the title says what each counts), flush latency, and the last error when
    /// there is room.
    mutating func drawOutcomes(y: Int, lines: Int) {
        let totals = snapshot.totals
        let batches = snapshot.isReadOnlyMonitor || snapshot.batchesSeenByMonitor ? "batches: seen by this monitor" : "batches: this engine"
        drawSectionTitle("Outcomes", detail: "· \(batches) · events: store lifetime", y: y)
        writeFitting([
            [Span(" sent ", .dim), Span("\(Format.count(totals.batchesSent)) batches", totals.batchesSent > 0 ? .ok : .normal)],
            [Span("   retried ", .dim), Span(Format.count(totals.retried), totals.retried > 0 ? .warn : .normal)],
            [Span("   split ", .dim), Span(Format.count(totals.split), totals.split > 0 ? .accent : .normal)],
            [Span("   dead-lettered ", .dim), Span(Format.count(totals.deadLettered), totals.deadLettered > 0 ? .error : .normal)],
            [Span("   dropped ", .dim), Span(Format.count(totals.dropped), totals.dropped > 0 ? .error : .normal)],
        ], y: y + 1)
        guard lines >= 2 else { return }
        let p50 = snapshot.latency.p50.map(Format.duration) ?? "–"
        let p99 = snapshot.latency.p99.map(Format.duration) ?? "–"
        writeFitting([
            [Span(" delivered ", .dim), Span(Format.count(totals.delivered)),
             Span(" of ", .dim), Span(Format.count(totals.accepted)), Span(" events", .dim)],
            [Span("   flush latency p50 ", .dim), Span(p50)],
            [Span("  p99 ", .dim), Span(p99)],
        ], y: y + 2)
        guard lines >= 3, let lastError = snapshot.lastError else { return }
        // How old it is: after an outage ends, the error stays on the screen as history.
        let age = snapshot.lastErrorAt.map { " (\(Format.elapsed(milliseconds: snapshot.time.millisecondsSince1970 - $0.millisecondsSince1970)) ago)" }
        let label = " last error\(age ?? "") "
        grid.write(label, x: 0, y: y + 3, style: .dim)
        grid.write(lastError.elidedRight(toWidth: width - DisplayWidth.of(label) - 1),
                   x: DisplayWidth.of(label), y: y + 3, style: .error)
    }
}

import Beacon

extension Renderer {
    /// The queue panel: a depth graph over time (newest at the right) and the current
    /// numbers beside it.
    mutating func drawQueue(y: Int, graphRows: Int) {
        let statsWidth = min(26, width / 2)
        let graphWidth = width - statsWidth - 2
        let samples = Array(snapshot.depthHistory.suffix(max(0, graphWidth)))
        // The depth now counts too: a sample is a tick old ("peak 29" beside a depth of 37).
        let peak = max(samples.max() ?? 0, snapshot.depth)
        let detail = samples.isEmpty ? "" : "· last \(samples.count)s · peak \(Format.count(peak))"
        drawSectionTitle("Queue depth", detail: detail, y: y)
        drawGraph(samples, peak: peak, x: 1, y: y + 1, width: graphWidth, rows: graphRows)
        drawQueueStats(x: width - statsWidth, y: y + 1, width: statsWidth, rows: graphRows)
    }

    /// Bars built from the eighth blocks `▁▂▃▄▅▆▇█`, scaled to the peak; any non-zero
    /// sample shows at least an eighth.
    private mutating func drawGraph(_ samples: [Int], peak: Int, x: Int, y: Int, width: Int, rows: Int) {
        guard !samples.isEmpty else {
            grid.write("no samples yet".elidedRight(toWidth: width), x: x, y: y + (rows - 1) / 2, style: .dim)
            return
        }
        let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let style: Style = snapshot.isOffline ? .warn : .accent
        let left = x + width - samples.count
        let scale = rows * 8
        for (index, sample) in samples.enumerated() {
            let eighths = sample <= 0 || peak <= 0 ? 0 : max(1, (sample * scale * 2 + peak) / (peak * 2))
            for row in 0..<rows {
                let filled = min(8, max(0, eighths - row * 8))
                guard filled > 0 else { break }
                grid[left + index, y + rows - 1 - row] = Cell(blocks[filled - 1], style: style)
            }
        }
    }

    /// Depth, bytes, rates, then as many further numbers as there are rows.
    private mutating func drawQueueStats(x: Int, y: Int, width: Int, rows: Int) {
        let stats: [(String, String, Style)] = [
            ("depth", Format.count(snapshot.depth), .bold),
            ("queued", Format.bytes(snapshot.queuedBytes), .normal),
            // An engine that stopped answering has no rates: unknown, not its last ones.
            ("in", snapshot.engineLostAt == nil ? Format.rate(snapshot.rateIn) : "unknown", .normal),
            ("out", snapshot.engineLostAt == nil ? Format.rate(snapshot.rateOut) : "unknown", .normal),
            ("in memory", Format.count(snapshot.buffered), snapshot.buffered > 0 ? .warn : .normal),
            ("accepted", Format.count(snapshot.totals.accepted), .normal),
            ("delivered", Format.count(snapshot.totals.delivered), .normal),
            ("batch max", Format.bytes(snapshot.maxBatchBytes), .normal),
        ]
        for row in 0..<rows {
            grid.write("│", x: x, y: y + row, style: .dim)
            guard row < stats.count else { continue }
            let (label, value, style) = stats[row]
            let valueWidth = max(0, width - 12)
            grid.write([Span(" " + label.padRight(10), .dim), Span(value.padLeft(valueWidth), style)],
                       x: x + 1, y: y + row, maxWidth: width - 1)
        }
    }
}

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

    /// Depth, bytes, rates, then as many further numbers as there are rows; depth and the
    /// rates with a sparkline of the last ten minutes between the label and the value.
    private mutating func drawQueueStats(x: Int, y: Int, width: Int, rows: Int) {
        let known = snapshot.engineLostAt == nil
        let trend = snapshot.trend
        let stats: [(String, String, Style, [Double]?)] = [
            ("depth", Format.count(snapshot.depth), .bold, trend.map { Double($0.depth) }),
            ("queued", Format.bytes(snapshot.queuedBytes), .normal, nil),
            // An engine that stopped answering has no rates: unknown, not its last ones.
            ("in", known ? Format.rate(snapshot.rateIn) : "unknown", .normal, known ? trend.map(\.rateIn) : []),
            ("out", known ? Format.rate(snapshot.rateOut) : "unknown", .normal, known ? trend.map(\.rateOut) : []),
            ("in memory", Format.count(snapshot.buffered), snapshot.buffered > 0 ? .warn : .normal, nil),
            ("accepted", Format.count(snapshot.totals.accepted), .normal, nil),
            ("delivered", Format.count(snapshot.totals.delivered), .normal, nil),
            ("batch max", Format.bytes(snapshot.maxBatchBytes), .normal, nil),
        ]
        for row in 0..<rows {
            grid.write("│", x: x, y: y + row, style: .dim)
            guard row < stats.count else { continue }
            let (label, value, style, series) = stats[row]
            // No points yet (or none known): the row as without sparklines.
            guard let series, !series.isEmpty else {
                let valueWidth = max(0, width - 12)
                grid.write([Span(" " + label.padRight(10), .dim), Span(value.padLeft(valueWidth), style)],
                           x: x + 1, y: y + row, maxWidth: width - 1)
                continue
            }
            // " label  ▁▂▃▅▇█▇▅▃ value": the value keeps its room, the sparkline takes what is left.
            let valueWidth = max(8, DisplayWidth.of(value))
            let sparkWidth = max(0, width - 1 - 1 - 6 - 1 - valueWidth)
            grid.write([
                Span(" " + label.padRight(6), .dim), Span(Self.sparkline(series, width: sparkWidth).padLeft(sparkWidth), .accent),
                Span(" " + value.padLeft(valueWidth), style),
            ], x: x + 1, y: y + row, maxWidth: width - 1)
        }
    }

    /// `series` (oldest first) in `width` cells of the eighth blocks, the newest at the
    /// right, each cell the highest of the points it covers, scaled to the series' own
    /// peak; a series of zeros is a flat `▁` line, no points no cells.
    static func sparkline(_ series: [Double], width: Int) -> String {
        guard width > 0, !series.isEmpty else { return "" }
        let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let cells = min(width, series.count)
        var values: [Double] = []
        for cell in 0..<cells {
            // Cell `cell` covers points [cell * n / cells, (cell + 1) * n / cells).
            let from = cell * series.count / cells
            let to = max(from + 1, (cell + 1) * series.count / cells)
            values.append(series[from..<to].max() ?? 0)
        }
        let peak = values.filter(\.isFinite).max() ?? 0
        return String(values.map { value -> Character in
            guard peak > 0, value.isFinite, value > 0 else { return blocks[0] }
            let level = Int((min(1, value / peak) * 7).rounded())  // 0...7: the ratio is in 0...1
            return blocks[min(7, max(0, level))]
        })
    }
}

/// Writes a ``SimulationTimeline`` (cleaned into ``ChartData``) as a standalone SVG 1.1
/// document: no scripts, no external resources, every number through ``ChartFormat``.
struct SVGChartRenderer {
    let data: ChartData
    let title: String
    let width: Int
    let height: Int

    // The plot area inside the margins, in pixels.
    private var left: Double { 64 }
    private var top: Double { 44 }
    private var plotWidth: Double { Double(width) - 128 }
    private var plotHeight: Double { Double(height) - 108 }
    private var bottom: Double { top + plotHeight }
    private var right: Double { left + plotWidth }

    private var depthTicks: ChartTicks {
        .values(upTo: data.maxDepth.map(ChartData.value) ?? 0, count: max(2, Int(plotHeight / 50)), integral: true)
    }
    private var rateTicks: ChartTicks {
        .values(upTo: data.maxRate, count: max(2, Int(plotHeight / 50)), integral: false)
    }

    func render() -> String {
        let depthTicks = depthTicks, rateTicks = rateTicks
        var out = [
            #"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"#,
            #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\#(width)" height="\#(height)" "#
                + #"viewBox="0 0 \#(width) \#(height)" font-family="sans-serif" font-size="12">"#,
            "<title>\(ChartText.xmlEscaped(ChartText.xmlSafe(title)))</title>",
            ##"<rect x="0" y="0" width="\##(width)" height="\##(height)" fill="#ffffff"/>"##,
            text(16, 26, fitted(title, pixels: Double(width) - 32, fontSize: 16), size: 16, attributes: #" font-weight="bold""#),
        ]
        out += bands()
        out += depthTicks.values.map {
            line(left, y(depth: $0, depthTicks), right, y(depth: $0, depthTicks), "#000000", #" stroke-opacity="0.1""#)
        }
        out += depthArea(depthTicks)
        out += destinationLines(depthTicks)
        // Delivered under tracked, wider, so both show where they are equal.
        out += rateLine(\.delivered, color: Self.deliveredColor, width: 3, rateTicks)
        out += rateLine(\.tracked, color: Self.trackedColor, width: 1.5, rateTicks)
        out += marks()
        out += axes(depthTicks, rateTicks)
        out += legend()
        if data.points.isEmpty {
            out.append(text(left + plotWidth / 2, top + plotHeight / 2, "no samples", size: 14,
                            attributes: ##" text-anchor="middle" fill="#888888""##))
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    // MARK: Series

    private func depthArea(_ ticks: ChartTicks) -> [String] {
        data.runs(columns: columns) { $0.depth.map(ChartData.value) }.map { run in
            let points = run.map { (x(time: $0.time), y(depth: $0.value, ticks)) }
            guard let first = points.first, let last = points.last, points.count > 1 else {
                return circle(x(time: run[0].time), y(depth: run[0].value, ticks), color: Self.depthColor)
            }
            let outline = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
            return #"<path d="M\#(n(first.0)),\#(n(bottom)) L\#(outline.replacingSpaces()) L\#(n(last.0)),\#(n(bottom)) Z" "#
                + #"fill="\#(Self.depthColor)" fill-opacity="0.3" stroke="none"/>"# + "\n"
                + #"<polyline points="\#(outline)" fill="none" stroke="\#(Self.depthColor)" stroke-width="1.5"/>"#
        }
    }

    /// A dashed line per destination: the events pending for it, on the depth axis.
    private func destinationLines(_ ticks: ChartTicks) -> [String] {
        data.destinations.indices.flatMap { index -> [String] in
            let color = Self.destinationColor(index)
            return data.runs(columns: columns) { $0.destinations[index].map(ChartData.value) }.map { run in
                guard run.count > 1 else { return circle(x(time: run[0].time), y(depth: run[0].value, ticks), color: color) }
                let outline = run.map { "\(n(x(time: $0.time))),\(n(y(depth: $0.value, ticks)))" }.joined(separator: " ")
                return #"<polyline points="\#(outline)" fill="none" stroke="\#(color)" stroke-width="1.5" stroke-dasharray="6 2"/>"#
            }
        }
    }

    private func rateLine(
        _ value: KeyPath<ChartData.Point, Double?>, color: String, width: Double, _ ticks: ChartTicks
    ) -> [String] {
        data.runs(columns: columns) { $0[keyPath: value] }.map { run in
            guard run.count > 1 else { return circle(x(time: run[0].time), y(rate: run[0].value, ticks), color: color) }
            let outline = run.map { "\(n(x(time: $0.time))),\(n(y(rate: $0.value, ticks)))" }.joined(separator: " ")
            return #"<polyline points="\#(outline)" fill="none" stroke="\#(color)" stroke-width="\#(n(width))"/>"#
        }
    }

    // MARK: Steps and marks

    private func bands() -> [String] {
        data.steps.flatMap { step -> [String] in
            let x0 = x(time: step.start), bandWidth = x(time: step.end) - x0
            var out: [String] = []
            if let fill = Self.fill(step.condition), bandWidth > 0 {
                out.append(#"<rect x="\#(n(x0))" y="\#(n(top))" width="\#(n(bandWidth))" height="\#(n(plotHeight))" fill="\#(fill)"/>"#)
            }
            let label = fitted(step.name, pixels: bandWidth - 6, fontSize: 11)
            if !label.isEmpty { out.append(text(x0 + 3, top + 13, label, size: 11, attributes: ##" fill="#444444""##)) }
            return out
        }
    }

    private func marks() -> [String] {
        var rowEnds = [Double](repeating: -.infinity, count: 3)
        return data.marks.flatMap { mark -> [String] in
            let markX = x(time: mark.time)
            let label = fitted(mark.label, pixels: 150, fontSize: 10)
            let labelWidth = Double(label.count) * 6
            let anchorEnd = markX + 3 + labelWidth > Double(width) - 4
            let start = anchorEnd ? markX - 3 - labelWidth : markX + 3
            let row = rowEnds.firstIndex { start >= $0 + 4 } ?? rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] } ?? 0
            rowEnds[row] = start + labelWidth
            var out = [line(markX, top, markX, bottom, Self.markColor, #" stroke-dasharray="4 3""#)]
            if !label.isEmpty {
                out.append(text(anchorEnd ? markX - 3 : markX + 3, top + 28 + Double(row) * 12, label, size: 10,
                                attributes: #" fill="\#(Self.markColor)""# + (anchorEnd ? #" text-anchor="end""# : "")))
            }
            return out
        }
    }

    // MARK: Geometry

    /// Pixel columns of the plot: runs keep at most two points per column.
    private var columns: Int { ChartFormat.clampedInt(plotWidth, in: 1...20_000) }

    func x(time: Double) -> Double { left + min(max(time / data.duration, 0), 1) * plotWidth }
    func y(depth: Double, _ ticks: ChartTicks) -> Double { bottom - min(max(depth / ticks.maximum, 0), 1) * plotHeight }
    func y(rate: Double, _ ticks: ChartTicks) -> Double { bottom - min(max(rate / ticks.maximum, 0), 1) * plotHeight }

    /// A coordinate or size as SVG text: at most one decimal.
    func n(_ value: Double) -> String { ChartFormat.decimal(value) }
}

private extension String {
    /// "x,y x,y" as "x,y Lx,y" for a path's `d`.
    func replacingSpaces() -> String { split(separator: " ").joined(separator: " L") }
}

/// Draws a ``SimulationTimeline``: as a standalone SVG document for a browser, or as lines
/// of text for a terminal. Pure functions: the same timeline always gives the same text,
/// and no input (NaN, infinities, negative or huge values, no samples at all) makes them trap.
///
/// ```swift
/// let svg = SimulationChart.svg(timeline, title: "offline burst")
/// try svg.write(to: chartURL, atomically: true, encoding: .utf8)
/// for line in SimulationChart.terminal(timeline, width: 78, height: 14) { print(line) }
/// ```
public enum SimulationChart {
    /// A standalone SVG 1.1 document (UTF-8 text) of the timeline: steps as shaded bands,
    /// queue depth as a filled area on the left axis, tracked/s and delivered/s as lines on
    /// the right axis, marks as dashed vertical lines, and a legend.
    ///
    /// - Parameters:
    ///   - timeline: What the run recorded.
    ///   - title: Drawn at the top, escaped for XML and truncated to fit.
    ///   - width: Width in pixels, clamped to 240…20,000.
    ///   - height: Height in pixels, clamped to 180…10,000.
    public static func svg(_ timeline: SimulationTimeline, title: String, width: Int = 960, height: Int = 400) -> String {
        SVGChartRenderer(
            data: ChartData(timeline), title: title,
            width: min(max(width, 240), 20_000), height: min(max(height, 180), 10_000)
        ).render()
    }

    /// The chart as text lines of exactly `width` characters each (counted as `Character`s),
    /// `height` lines in all: the plot with a y-axis of queue depth, an x-axis line with
    /// step boundaries and time ticks, a line of time labels, and a legend line.
    ///
    /// - Parameters:
    ///   - timeline: What the run recorded.
    ///   - width: Characters per line, clamped to 40…400.
    ///   - height: Lines, clamped to 6…100.
    ///   - unicode: Block elements and box drawing when true; plain ASCII when false.
    public static func terminal(_ timeline: SimulationTimeline, width: Int = 78, height: Int = 14, unicode: Bool = true) -> [String] {
        TerminalChartRenderer(
            data: ChartData(timeline), width: min(max(width, 40), 400), height: min(max(height, 6), 100),
            glyphs: unicode ? .unicode : .ascii
        ).render()
    }
}

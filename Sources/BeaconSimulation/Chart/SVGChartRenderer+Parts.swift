/// Axes, legend, colors and element helpers of ``SVGChartRenderer``.
extension SVGChartRenderer {
    static let depthColor = "#4c78a8"
    static let trackedColor = "#f58518"
    static let deliveredColor = "#54a24b"
    static let markColor = "#b22222"
    /// The colors of the destinations' lines, in name order.
    static let destinationColors = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#ad494a"]

    static func destinationColor(_ index: Int) -> String { destinationColors[index % destinationColors.count] }

    /// The band color of a condition; healthy steps get no band.
    static func fill(_ condition: SimulationTimeline.Condition) -> String? {
        switch condition {
        case .healthy: nil
        case .offline: "#d9d9d9"
        case .faulted: "#f8d0d0"
        case .paused: "#fbf1c0"
        case .drain: "#d4edd4"
        }
    }

    func axes(_ depthTicks: ChartTicks, _ rateTicks: ChartTicks) -> [String] {
        let left = x(time: 0), right = x(time: data.duration)
        let top = y(depth: depthTicks.maximum, depthTicks), bottom = y(depth: 0, depthTicks)
        var out = [
            line(left, top, left, bottom, "#333333"),
            line(right, top, right, bottom, "#333333"),
            line(left, bottom, right, bottom, "#333333"),
        ]
        for value in depthTicks.values {
            let tickY = y(depth: value, depthTicks)
            out.append(line(left - 4, tickY, left, tickY, "#333333"))
            out.append(text(left - 6, tickY + 4, ChartFormat.compact(value), size: 11, attributes: #" text-anchor="end""#))
        }
        for value in rateTicks.values {
            let tickY = y(rate: value, rateTicks)
            out.append(line(right, tickY, right + 4, tickY, "#333333"))
            out.append(text(right + 6, tickY + 4, ChartFormat.compact(value), size: 11))
        }
        let timeTicks = ChartTicks.time(duration: data.duration, count: max(2, Int((right - left) / 90)))
        for value in timeTicks.values {
            let tickX = x(time: value)
            out.append(line(tickX, bottom, tickX, bottom + 4, "#333333"))
            out.append(text(tickX, bottom + 16, ChartFormat.time(value, minutes: timeTicks.usesMinutes), size: 11,
                            attributes: #" text-anchor="middle""#))
        }
        let middle = (top + bottom) / 2
        let rightEdge = Double(width) - 14
        out.append(text(14, middle, "events queued", size: 11,
                        attributes: #" text-anchor="middle" transform="rotate(-90 14 \#(n(middle)))""#))
        out.append(text(rightEdge, middle, "events/s", size: 11,
                        attributes: #" text-anchor="middle" transform="rotate(90 \#(n(rightEdge)) \#(n(middle)))""#))
        out.append(text((left + right) / 2, bottom + 32, timeTicks.usesMinutes ? "time (m:ss)" : "time (s)", size: 11,
                        attributes: #" text-anchor="middle""#))
        return out
    }

    func legend() -> [String] {
        var items: [(swatch: (Double, Double) -> String, label: String)] = [
            ({ #"<rect x="\#(n($0))" y="\#(n($1 - 9))" width="18" height="10" fill="\#(Self.depthColor)" fill-opacity="0.4"/>"# },
             "queue depth (events)"),
            ({ line($0, $1 - 4, $0 + 18, $1 - 4, Self.trackedColor, #" stroke-width="1.5""#) }, "tracked/s"),
            ({ line($0, $1 - 4, $0 + 18, $1 - 4, Self.deliveredColor, #" stroke-width="3""#) }, "delivered/s"),
        ]
        for (index, name) in data.destinations.enumerated() {
            let color = Self.destinationColor(index)
            items.append(({ line($0, $1 - 4, $0 + 18, $1 - 4, color, #" stroke-width="1.5" stroke-dasharray="6 2""#) },
                          "pending " + ChartText.truncated(ChartText.xmlSafe(name), to: 16, ellipsis: "…")))
        }
        if !data.marks.isEmpty {
            items.append(({ line($0 + 9, $1 - 10, $0 + 9, $1 + 1, Self.markColor, #" stroke-dasharray="4 3""#) }, "mark"))
        }
        let present = Set(data.steps.map(\.condition))
        for condition in SimulationTimeline.Condition.allCases where present.contains(condition) {
            guard let fill = Self.fill(condition) else { continue }
            items.append(({ #"<rect x="\#(n($0))" y="\#(n($1 - 9))" width="18" height="10" fill="\#(fill)"/>"# }, condition.rawValue))
        }
        var out: [String] = []
        var cursor = x(time: 0)
        let baseline = Double(height) - 12
        for item in items where cursor + 22 + Double(item.label.count) * 6.6 <= Double(width) {
            out.append(item.swatch(cursor, baseline))
            out.append(text(cursor + 22, baseline, item.label, size: 11))
            cursor += 22 + Double(item.label.count) * 6.6 + 16
        }
        return out
    }

    // MARK: Elements

    /// `text` (not yet escaped) cut to fit `pixels` at `fontSize`, estimating 0.6 × the font
    /// size per character; "" when not even one character and the ellipsis fit.
    func fitted(_ text: String, pixels: Double, fontSize: Double) -> String {
        let limit = ChartFormat.clampedInt((pixels / (0.6 * fontSize)).rounded(.down), in: 0...10_000)
        return ChartText.truncated(ChartText.xmlSafe(text), to: limit, ellipsis: "…")
    }

    /// A `<text>` element; `content` is escaped here.
    func text(_ x: Double, _ y: Double, _ content: String, size: Double, attributes: String = "") -> String {
        #"<text x="\#(n(x))" y="\#(n(y))" font-size="\#(n(size))"\#(attributes)>\#(ChartText.xmlEscaped(content))</text>"#
    }

    func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String, _ attributes: String = "") -> String {
        #"<line x1="\#(n(x1))" y1="\#(n(y1))" x2="\#(n(x2))" y2="\#(n(y2))" stroke="\#(color)"\#(attributes)/>"#
    }

    func circle(_ x: Double, _ y: Double, color: String) -> String {
        #"<circle cx="\#(n(x))" cy="\#(n(y))" r="2" fill="\#(color)"/>"#
    }
}

/// Draws a ``SimulationTimeline`` (cleaned into ``ChartData``) as lines of text: a depth
/// plot with a y-axis, an x-axis line, a line of time labels and a legend line.
struct TerminalChartRenderer {
    /// The characters a chart is drawn with.
    struct Glyphs {
        /// Bar tops by eighths filled, index 1…8.
        var blocks: [Character]
        var unknown: Character = "?"
        var mark: Character
        var axis: Character
        var axisTick: Character
        var corner: Character
        var rule: Character
        var timeTick: Character
        var boundary: Character
        var ellipsis: String
        var shading: [SimulationTimeline.Condition: Character]

        static let unicode = Glyphs(
            blocks: [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"], mark: "╎", axis: "│", axisTick: "┤", corner: "└",
            rule: "─", timeTick: "┬", boundary: "┴", ellipsis: "…",
            shading: [.healthy: " ", .offline: "░", .faulted: "╱", .paused: "┄", .drain: "·"]
        )
        static let ascii = Glyphs(
            blocks: [" ", ".", ".", ".", ":", ":", ":", ":", "#"], mark: "!", axis: "|", axisTick: "+", corner: "+",
            rule: "-", timeTick: "|", boundary: "+", ellipsis: "...",
            shading: [.healthy: " ", .offline: "~", .faulted: "/", .paused: "=", .drain: "-"]
        )
    }

    /// What one plot column shows of the queue depth.
    enum Depth: Equatable {
        /// No sample reaches this column (before the first or after the last).
        case none
        /// The engine did not answer: drawn as "?" on the baseline.
        case unknown
        /// The deepest known depth in the column (or carried from the sample before it).
        case known(Int)
    }

    static let stepCodes = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    let data: ChartData
    let width: Int
    let height: Int
    let glyphs: Glyphs

    func render() -> [String] {
        // A line of its own names the destinations' digits, when they are drawn.
        let destinationLegend = data.destinations.isEmpty || height < 8 ? nil : destinationsLegend()
        let rows = height - 3 - (destinationLegend == nil ? 0 : 1)
        let ticks = ChartTicks.values(upTo: data.maxDepth.map(ChartData.value) ?? 0, count: max(1, rows / 3), integral: true)
        let labels = tickLabels(ticks, rows: rows)
        let labelWidth = max(1, labels.values.map(\.count).max() ?? 1)
        let columns = width - labelWidth - 2
        let depths = depthColumns(columns)
        var grid = plot(depths, ticks: ticks, rows: rows, columns: columns)
        if destinationLegend != nil { drawDestinations(on: &grid, ticks: ticks, rows: rows, columns: columns) }
        var lines = (0..<rows).reversed().map { row in
            pad(labels[row] ?? "", to: labelWidth, leading: true) + " " + String(labels[row] == nil ? glyphs.axis : glyphs.axisTick)
                + String(grid[row])
        }
        let timeTicks = ChartTicks.time(duration: data.duration, count: max(1, columns / 10))
        lines.append(String(repeating: " ", count: labelWidth + 1) + String(glyphs.corner) + axisLine(timeTicks, columns: columns))
        lines.append(String(repeating: " ", count: labelWidth + 2) + timeLabels(timeTicks, columns: columns))
        lines.append(legend(hasUnknown: depths.contains(.unknown)))
        if let destinationLegend { lines.append(destinationLegend) }
        return lines.map(fit)
    }

    // MARK: Plot

    /// The depth each plot column shows: the deepest known sample in it, "unknown" when
    /// its samples all were, and the previous sample's depth held across empty columns.
    func depthColumns(_ columns: Int) -> [Depth] {
        var hasSample = [Bool](repeating: false, count: columns)
        var deepest = [Int?](repeating: nil, count: columns)
        var lastDepth = [Int?](repeating: nil, count: columns)
        for point in data.points {
            let column = data.column(of: point.time, columns: columns)
            hasSample[column] = true
            if let depth = point.depth { deepest[column] = max(deepest[column] ?? 0, depth) }
            lastDepth[column] = point.depth
        }
        guard let first = hasSample.firstIndex(of: true), let last = hasSample.lastIndex(of: true) else {
            return [Depth](repeating: .none, count: columns)
        }
        var result = [Depth](repeating: .none, count: columns)
        var carried: Int?
        for column in first...last {
            if hasSample[column] {
                result[column] = deepest[column].map(Depth.known) ?? .unknown
                carried = lastDepth[column]
            } else {
                result[column] = carried.map(Depth.known) ?? .unknown
            }
        }
        return result
    }

    /// The plot cells, row 0 at the bottom: shading by step, marks, bars, "?" and step codes.
    func plot(_ depths: [Depth], ticks: ChartTicks, rows: Int, columns: Int) -> [[Character]] {
        let step = data.duration / Double(columns)
        var grid = [[Character]](repeating: [Character](repeating: " ", count: columns), count: rows)
        let markColumns = Set(data.marks.map { data.column(of: $0.time, columns: columns) })
        for column in 0..<columns {
            let condition = data.condition(at: (Double(column) + 0.5) * step) ?? .healthy
            let background = markColumns.contains(column) ? glyphs.mark : glyphs.shading[condition] ?? " "
            for row in 0..<rows { grid[row][column] = background }
            switch depths[column] {
            case .none: break
            case .unknown: grid[0][column] = glyphs.unknown
            case .known(let depth):
                let eighths = barEighths(depth, ticks: ticks, rows: rows)
                for row in 0..<rows where row * 8 < eighths {
                    grid[row][column] = glyphs.blocks[min(8, eighths - row * 8)]
                }
            }
        }
        for (index, step) in data.steps.enumerated() {
            grid[rows - 1][data.column(of: step.start, columns: columns)] = Self.code(index)
        }
        if data.points.isEmpty {
            let note = Array("no samples")
            let start = max(0, (columns - note.count) / 2)
            grid[rows / 2].replaceSubrange(start..<min(columns, start + note.count), with: note.prefix(columns - start))
        }
        return grid
    }

    /// Each destination's pending events as its digit (1, 2, …) over the bars, on the row of
    /// the deepest sample in the column; none where it had nothing pending.
    func drawDestinations(on grid: inout [[Character]], ticks: ChartTicks, rows: Int, columns: Int) {
        for index in data.destinations.indices {
            var deepest = [Int?](repeating: nil, count: columns)
            for point in data.points {
                guard let pending = point.destinations[index] else { continue }
                let column = data.column(of: point.time, columns: columns)
                deepest[column] = max(deepest[column] ?? 0, pending)
            }
            let digit = Self.destinationDigit(index)
            for column in 0..<columns {
                guard let pending = deepest[column], pending > 0 else { continue }
                let row = (barEighths(pending, ticks: ticks, rows: rows) + 7) / 8 - 1
                grid[min(max(row, 0), rows - 1)][column] = digit
            }
        }
    }

    /// `1 main  2 backup  3 warehouse`: which digit draws which destination's pending events.
    func destinationsLegend() -> String {
        let entries = data.destinations.enumerated().map { index, name in "\(Self.destinationDigit(index)) \(self.name(name))" }
        return listing(["pending:"] + entries, room: width)
    }

    /// The digit a destination's line is drawn with: 1…8.
    static func destinationDigit(_ index: Int) -> Character {
        Character(String(index % 9 + 1))
    }

    /// Bar height in eighths of a row; any depth above zero shows at least one eighth.
    func barEighths(_ depth: Int, ticks: ChartTicks, rows: Int) -> Int {
        guard depth > 0 else { return 0 }
        let scaled = ChartData.value(depth) / ticks.maximum * Double(rows * 8)
        return ChartFormat.clampedInt(scaled.rounded(), in: 1...(rows * 8))
    }

    /// Axis labels by row (0 at the bottom): each tick on the row whose top edge it marks.
    func tickLabels(_ ticks: ChartTicks, rows: Int) -> [Int: String] {
        var labels: [Int: String] = [:]
        for value in ticks.values {
            let edge = ChartFormat.clampedInt((value / ticks.maximum * Double(rows)).rounded(), in: 0...rows)
            let row = max(0, edge - 1)
            if labels[row] == nil { labels[row] = ChartFormat.compact(value) }
        }
        return labels
    }

    /// The step code drawn at a step's start and in the legend: A–Z, a–z, then "*".
    static func code(_ index: Int) -> Character {
        index < stepCodes.count ? stepCodes[index] : "*"
    }
}

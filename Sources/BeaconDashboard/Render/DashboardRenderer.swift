import Beacon

/// Draws the dashboard into a ``CellGrid``: a pure function of a snapshot, the UI state
/// and a size. No clocks: ages and countdowns are measured from `snapshot.time`.
///
/// ```swift
/// let grid = DashboardRenderer.render(snapshot: snapshot, state: state, size: (width: 80, height: 24))
/// print(grid.text)
/// ```
public enum DashboardRenderer {
    /// The smallest size the dashboard draws panels in; below it says the terminal is too small.
    public static let minimumSize = (width: 40, height: 10)

    /// The frame for `snapshot` and `state` at `size`.
    public static func render(snapshot: EngineSnapshot, state: DashboardState, size: (width: Int, height: Int)) -> CellGrid {
        guard size.width >= minimumSize.width, size.height >= minimumSize.height else {
            return renderTooSmall(size: size)
        }
        var renderer = Renderer(snapshot: snapshot, state: state, grid: CellGrid(width: size.width, height: size.height))
        renderer.drawPanels()
        if state.isHelpVisible { renderer.drawHelp() }
        return renderer.grid
    }

    /// The frame shown before the first snapshot arrives.
    public static func renderWaiting(state: DashboardState, size: (width: Int, height: Int)) -> CellGrid {
        guard size.width >= minimumSize.width, size.height >= minimumSize.height else {
            return renderTooSmall(size: size)
        }
        var renderer = Renderer(snapshot: EngineSnapshot(time: .init(millisecondsSince1970: 0)), state: state,
                                grid: CellGrid(width: size.width, height: size.height))
        renderer.grid.write([Span(" BEACON ", .inverse)], x: 0, y: 0)
        renderer.writeCentered("waiting for the engine's first snapshot…", y: size.height / 2, style: .dim)
        renderer.drawFooter(y: size.height - 2)
        if state.isHelpVisible { renderer.drawHelp() }
        return renderer.grid
    }

    /// A short note instead of panels that would not fit.
    static func renderTooSmall(size: (width: Int, height: Int)) -> CellGrid {
        var grid = CellGrid(width: size.width, height: size.height)
        let lines = [
            size.width >= 18 ? "terminal too small" : "too small",
            "\(size.width)x\(size.height), need \(minimumSize.width)x\(minimumSize.height)",
            "q quits",
        ]
        let top = max(0, (grid.height - lines.count) / 2)
        for (index, line) in lines.enumerated() {
            let text = line.elidedRight(toWidth: grid.width)
            grid.write(text, x: max(0, (grid.width - DisplayWidth.of(text)) / 2), y: top + index,
                       style: index == 0 ? .warn : .dim)
        }
        return grid
    }
}

/// One render in progress: the inputs and the grid being drawn.
struct Renderer {
    let snapshot: EngineSnapshot
    let state: DashboardState
    var grid: CellGrid

    var width: Int { grid.width }
    var height: Int { grid.height }

    /// Lays the panels out and draws each.
    mutating func drawPanels() {
        let layout = DashboardLayout(snapshot: snapshot, height: height)
        var y = 0
        drawHeader(lines: layout.headerLines)
        y += layout.headerLines
        if layout.hasStorageLine {
            drawStorageProblem(y: y)
            y += 1
        }
        // An open dead letter takes the queue graph's rows too: it has the most to say.
        let letterOpen = state.view == .deadLetters && state.workbench.detail != nil
        // So does the pending-events view: the selected event's JSON goes below the list.
        let lendsGraph = letterOpen || state.view == .pendingEvents
        let lentRows = lendsGraph && layout.graphRows > 0 ? 1 + layout.graphRows : 0
        if layout.graphRows > 0, !lendsGraph {
            drawQueue(y: y, graphRows: layout.graphRows)
            y += 1 + layout.graphRows
        }
        if state.view == .deadLetters, layout.middleRows + lentRows >= 2 {
            drawDeadLetters(y: y, rows: layout.middleRows + lentRows - 1)
            y += layout.middleRows + lentRows
        } else if state.view == .pendingEvents, layout.middleRows + lentRows >= 2 {
            drawPendingEvents(y: y, rows: layout.middleRows + lentRows - 1)
            y += layout.middleRows + lentRows
        } else if state.view == .operatorLog, layout.middleRows >= 2 {
            drawOperatorLog(y: y, rows: layout.middleRows - 1)
            y += layout.middleRows
        } else if state.view == .eventNames, layout.middleRows >= 2 {
            drawEventNames(y: y, rows: layout.middleRows - 1)
            y += layout.middleRows
        } else {
            if layout.historyRows > 0 {
                drawHistory(y: y, rows: layout.historyRows)
                y += 2 + layout.historyRows
            }
            if layout.destinationRows > 0 {
                drawDestinations(y: y, rows: layout.destinationRows)
                y += 1 + layout.destinationRows
            }
        }
        if layout.outcomeLines > 0 {
            drawOutcomes(y: y, lines: layout.outcomeLines)
        }
        drawFooter(y: height - 2)
    }

    /// A panel title: `─ Title ─────…` across the width.
    mutating func drawSectionTitle(_ title: String, detail: String = "", y: Int) {
        grid.fill(x: 0, y: y, width: width, character: "─", style: .dim)
        var x = 2
        x += grid.write(" " + title + " ", x: x, y: y, style: .bold, maxWidth: width - x - 1)
        if !detail.isEmpty {
            grid.write(detail.elidedRight(toWidth: width - x - 2) + " ", x: x, y: y, style: .dim, maxWidth: width - x - 1)
        }
    }

    /// Writes groups of spans left to right on row `y`, each only if it fits whole (the
    /// first is always written, clipped if need be), so narrow terminals lose whole
    /// figures rather than show half of one.
    mutating func writeFitting(_ groups: [[Span]], y: Int) {
        var x = 0
        for (index, group) in groups.enumerated() {
            let groupWidth = group.displayWidth
            if index > 0, x + groupWidth > width { continue }
            x += grid.write(group, x: x, y: y, maxWidth: width - x)
        }
    }

    /// `text` centred on row `y`.
    mutating func writeCentered(_ text: String, y: Int, style: Style) {
        let fitted = text.elidedRight(toWidth: width)
        grid.write(fitted, x: max(0, (width - DisplayWidth.of(fitted)) / 2), y: y, style: style)
    }
}

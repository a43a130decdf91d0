import Beacon
import BeaconWire

extension DashboardRenderer {
    /// The fleet screen: the open engine's whole dashboard, or the list of engines, one
    /// summary row each (state, depth, oldest pending, rates, dead letters, failing
    /// destinations), with the selected one marked.
    ///
    /// ```swift
    /// let grid = DashboardRenderer.renderFleet(snapshots: [a, b], state: fleet, size: (width: 80, height: 24))
    /// ```
    public static func renderFleet(snapshots: [EngineSnapshot?], state: FleetState, size: (width: Int, height: Int)) -> CellGrid {
        if let index = state.focused, state.engines.indices.contains(index) {
            var engine = state.engines[index]
            engine.fleetPosition = FleetPosition(index: index, count: state.names.count, name: state.names[index])
            let snapshot = snapshots.indices.contains(index) ? snapshots[index] : nil
            return snapshot.map { render(snapshot: $0, state: engine, size: size) } ?? renderWaiting(state: engine, size: size)
        }
        guard size.width >= minimumSize.width, size.height >= minimumSize.height else { return renderTooSmall(size: size) }
        var grid = CellGrid(width: size.width, height: size.height)
        let rows = state.names.indices.map { FleetRow(name: state.names[$0], snapshot: snapshots.indices.contains($0) ? snapshots[$0] : nil) }
        let lost = rows.filter { if case .lost = $0.condition { return true } else { return false } }.count
        let failing = rows.filter { !$0.failing.isEmpty }.count
        var title: [Span] = [Span(" BEACON ", .inverse), Span("  \(rows.count) engines", .bold)]
        if lost > 0 { title.append(Span("  \(lost) lost", .error)) }
        let unreadable = rows.filter { if case .unreadable = $0.condition { return true } else { return false } }.count
        if unreadable > 0 { title.append(Span("  \(unreadable) unreadable", .error)) }
        if failing > 0 { title.append(Span("  \(failing) failing", .warn)) }
        grid.write(title, x: 0, y: 0, maxWidth: size.width)
        let tag = " MONITOR (\(state.engines.first?.isReadOnlyByChoice == true ? "fleet, read-only" : "fleet")) "
        grid.write(tag, x: max(0, size.width - DisplayWidth.of(tag)), y: 0, style: .accent)
        grid.fill(x: 0, y: 1, width: size.width, character: "─", style: .dim)
        grid.write(" Engines ", x: 2, y: 1, style: .bold)
        let header = "  " + "engine".padRight(13) + "state".padRight(16) + "depth".padLeft(8) + "oldest".padLeft(7)
            + "in/s".padLeft(8) + "out/s".padLeft(8) + "dead".padLeft(5) + "  failing"
        grid.write(header, x: 0, y: 2, style: .dim, maxWidth: size.width)
        let listRows = max(1, size.height - 6)
        let first = min(max(0, state.cursor - listRows + 1), max(0, rows.count - listRows))
        for (line, index) in (first..<rows.count).prefix(listRows).enumerated() {
            draw(rows[index], snapshot: snapshots.indices.contains(index) ? snapshots[index] : nil, selected: index == state.cursor,
                 y: 3 + line, grid: &grid)
        }
        let footer: [Span] = [Span(" ↑↓", .bold), Span(":select  ", .dim), Span("⏎", .bold), Span(":open  ", .dim),
                              Span("?", .bold), Span(":help  ", .dim), Span("q", .bold), Span(":quit", .dim)]
        grid.write(footer, x: 0, y: size.height - 2, maxWidth: size.width)
        if let message = state.message {
            grid.write(" " + message.text.elidedRight(toWidth: size.width - 2), x: 0, y: size.height - 1,
                       style: message.severity == .info ? .normal : .warn)
        }
        if state.isHelpVisible { drawFleetHelp(&grid) }
        return grid
    }

    /// One engine's row.
    private static func draw(_ row: FleetRow, snapshot: EngineSnapshot?, selected: Bool, y: Int, grid: inout CellGrid) {
        let now = snapshot?.time.millisecondsSince1970 ?? 0
        let (state, style) = describe(row.condition, now: now)
        let dash = "?"
        if case .unreadable(let reason) = row.condition {
            // No figure stands for the store: why, where they would be.
            let x = grid.write([
                Span(selected ? "▶ " : "  ", .bold), Span(row.name.elidedRight(toWidth: 12).padRight(12), selected ? .inverse : .bold),
                Span(" "), Span(state.padRight(16), style),
            ], x: 0, y: y, maxWidth: grid.width)
            grid.write(PrintableText.line(reason).elidedRight(toWidth: max(0, grid.width - x)), x: x, y: y, style: .dim, maxWidth: grid.width - x)
            return
        }
        var x = grid.write([
            Span(selected ? "▶ " : "  ", .bold),
            Span(row.name.elidedRight(toWidth: 12).padRight(12), selected ? .inverse : .bold),
            Span(" "),
            Span(state.elidedRight(toWidth: 15).padRight(16), style),
            Span((row.depth.map(Format.count) ?? dash).padLeft(8)),
            Span((row.oldestPending.map { Format.elapsed(milliseconds: $0) } ?? "-").padLeft(7),
                 (row.oldestPending ?? 0) > DestinationStatus.stallThreshold.inMilliseconds ? .warn : .normal),
            Span((row.rateIn.map(Format.rate) ?? dash).padLeft(8), row.rateIn == nil ? .dim : .normal),
            Span((row.rateOut.map(Format.rate) ?? dash).padLeft(8), row.rateOut == nil ? .dim : .normal),
            Span((row.deadLetters.map(Format.count) ?? dash).padLeft(5), (row.deadLetters ?? 0) > 0 ? .warn : .normal),
            Span("  "),
        ], x: 0, y: y, maxWidth: grid.width)
        if !row.failing.isEmpty, x < grid.width {
            x += grid.write(row.failing.joined(separator: ",").elidedRight(toWidth: grid.width - x), x: x, y: y, style: .error)
        }
    }

    /// A condition in a few words, and how to show it.
    static func describe(_ condition: FleetRow.Condition, now: Int64) -> (String, Style) {
        switch condition {
        case .waiting: return ("reading…", .dim)
        case .lost(let since): return ("LOST \(Format.timeOfDay(millisecondsSince1970: since.millisecondsSince1970))", .error)
        case .unreadable: return ("UNREADABLE", .error)
        case .storageFault: return ("STORAGE FAULT", .error)
        case .queueFull: return ("QUEUE FULL", .error)
        case .stalled: return ("STALLED", .error)
        case .backingOff(let next): return ("retry in \(Format.elapsed(milliseconds: max(0, next.millisecondsSince1970 - now)))", .warn)
        case .offline: return ("offline", .warn)
        case .paused: return ("paused", .warn)
        case .sending: return ("sending", .ok)
        case .idle: return ("idle", .normal)
        case .starting: return ("starting", .dim)
        case .noEngine: return ("no engine", .dim)
        }
    }

    /// The list's keys in a box.
    private static func drawFleetHelp(_ grid: inout CellGrid) {
        let lines = [
            "↑↓ j k  select an engine", "Enter   open it on the whole screen", "Esc     back to this list (from an open engine)",
            "?       this help", "q       quit", "", "An open engine takes the keys of beacon monitor:", "every change asks y first.",
        ]
        let width = min(grid.width - 2, (lines.map { DisplayWidth.of($0) }.max() ?? 0) + 4)
        let height = min(grid.height - 2, lines.count + 2)
        let left = (grid.width - width) / 2
        let top = (grid.height - height) / 2
        grid.write("┌" + String(repeating: "─", count: width - 2) + "┐", x: left, y: top, style: .bold)
        grid.write(" Keys ", x: left + 2, y: top, style: .bold)
        for row in 0..<(height - 2) {
            grid.fill(x: left, y: top + 1 + row, width: width)
            grid.write("│ " + lines[row], x: left, y: top + 1 + row, maxWidth: width - 1)
            grid.write("│", x: left + width - 1, y: top + 1 + row, style: .bold)
        }
        grid.write("└" + String(repeating: "─", count: width - 2) + "┘", x: left, y: top + height - 1, style: .bold)
    }
}

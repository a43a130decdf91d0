import Beacon

extension Renderer {
    /// A box over the middle of the screen listing every key.
    mutating func drawHelp() {
        var lines: [(String, String)] = [
            ("f", "flush now"),
            ("p", "set the flush policy (presets 1-4 or typed)"),
            ("o", "go offline / back online"),
            ("b", "track a burst of \(Format.count(state.burstSize)) events"),
            ("B [ ]", "type the burst size / halve / double it"),
            ("+ -", "double / halve the batch size (1 to 10,000)"),
            ("r", "generator rate: off, 10/s, 100/s, 1000/s"),
            ("c", "collector faults: none, flaky, down, slow"),
            ("P", "pause / resume the selected destination"),
            ("R", "retry the selected destination now (ends its backoff)"),
            ("Tab", "select the next destination"),
            ("d", "dead letters: ↑↓ select, ⏎ open, / search,"),
            ("", "␣ mark, r x retry/purge it or the marked,"),
            ("", "R X all the search finds (x X ask y), d close"),
            ("n", "event names: the busiest, counts and rates"),
            ("? Esc", "close this help"),
            ("q", "quit (the caller flushes once more)"),
        ]
        if state.hasRemoteConfig {
            lines.insert(("s", "poll the remote config feed now"), at: lines.count - 2)
        }
        if isMonitor {
            lines = [
                ("d", "dead letters: ↑↓ select, ⏎ open, / search"), ("n", "event names (an engine's)"),
                ("Tab", "select the next destination"), ("? Esc", "close this help"),
                ("q", "quit"), ("", "read-only monitor: f p o + - P R r x X"), ("", "need a serving engine on this store"),
            ]
        } else if isAttached {
            lines = lines.filter { ["f", "p", "o", "+ -", "P", "R", "Tab", "d", "n", "", "? Esc"].contains($0.0) } + [
                ("q", "quit (the engine keeps running)"), ("", "attached: keys act on the engine serving the store"),
            ]
        }
        let title = "Keys"
        let content = lines.map { " " + $0.0.padRight(6) + "  " + $0.1 + " " }
        let boxWidth = min(width - 2, (content.map { DisplayWidth.of($0) }.max() ?? 0) + 2)
        let boxHeight = min(height - 2, content.count + 2)
        guard boxWidth >= 12, boxHeight >= 3 else { return }
        let left = (width - boxWidth) / 2
        let top = (height - boxHeight) / 2
        let inner = boxWidth - 2
        grid.write("┌" + String(repeating: "─", count: inner) + "┐", x: left, y: top, style: .bold)
        grid.write(" \(title) ", x: left + 2, y: top, style: .bold)
        for row in 0..<(boxHeight - 2) {
            grid.write("│", x: left, y: top + 1 + row, style: .bold)
            grid.fill(x: left + 1, y: top + 1 + row, width: inner)
            let line = lines[row]
            grid.write([Span(" " + line.0.padRight(6) + "  ", .bold), Span(line.1 + " ")],
                       x: left + 1, y: top + 1 + row, maxWidth: inner)
            grid.write("│", x: left + boxWidth - 1, y: top + 1 + row, style: .bold)
        }
        grid.write("└" + String(repeating: "─", count: inner) + "┘", x: left, y: top + boxHeight - 1, style: .bold)
    }
}

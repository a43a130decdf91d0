import Beacon

extension Renderer {
    /// A box over the middle of the screen: every key, or (`?` again) what each figure
    /// on the screen means.
    mutating func drawHelp() {
        if state.helpPage == .figures {
            drawHelpBox(title: "Figures · ? closes", lines: Self.legend, keyWidth: 13)
            return
        }
        drawHelpBox(title: "Keys · ? what the figures mean", lines: keyLines, keyWidth: 6)
    }

    /// One line per figure the screen shows, and what it counts ("this engine": since
    /// the engine started; "store": over the store's life).
    static let legend: [(String, String)] = [
        ("depth", "events stored that a destination has still to send"),
        ("queued", "the bytes of those events' JSON"),
        ("in  out", "events accepted / delivered per second, last 5 s"),
        ("▁▃▅█", "depth, in, out over the last 10 min, newest right"),
        ("in memory", "accepted, not yet committed to the store"),
        ("accepted", "events the store committed (store)"),
        ("delivered", "events their destinations acknowledged (store)"),
        ("batch max", "the most bytes one request carries"),
        ("peak", "the deepest queue in the graph's window"),
        ("oldest", "age of the oldest event still pending"),
        ("pending", "a destination's events not yet delivered"),
        ("rate", "a destination's deliveries per second"),
        ("failing since", "its first failure after its last success"),
        ("drains in", "pending ÷ (out − in); not draining: it grows"),
        ("sent retried", "batches sent / sent again (this engine)"),
        ("split", "batches cut in two to find a failing event"),
        ("dead-lettered", "events set aside with a reason (store): d"),
        ("dropped", "events the full queue pushed out (store)"),
        ("refused", "events a full queue turned away (this engine)"),
        ("p50  p99", "a batch's send time, over the last 1,000"),
    ]

    /// Every key of this mode.
    private var keyLines: [(String, String)] {
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
            ("e", "pending events: the oldest and newest, JSON"),
            ("l", "operator log: who changed what, and when"),
            ("? Esc", "the figures' meaning / close this help"),
            ("q", "quit (the caller flushes once more)"),
        ]
        if state.hasRemoteConfig {
            lines.insert(("s", "poll the remote config feed now"), at: lines.count - 2)
        }
        if isMonitor {
            lines = [
                ("d", "dead letters: ↑↓ select, ⏎ open, / search"), ("n", "event names (an engine's)"),
                ("e", "pending events: the oldest and newest, JSON"), ("l", "operator log: who changed what"),
                ("Tab", "select the next destination"), ("? Esc", "the figures' meaning / close this help"),
                ("q", "quit"), ("", "read-only monitor: f p o + - P R r x X"), ("", "need a serving engine on this store"),
            ]
        } else if isAttached {
            lines = lines.filter { ["f", "p", "o", "+ -", "P", "R", "Tab", "d", "n", "e", "l", "", "? Esc"].contains($0.0) } + [
                ("q", "quit (the engine keeps running)"), ("", "attached: keys act on the engine serving the store"),
            ]
        }
        return lines
    }

    /// The box: `lines` as key (bold, `keyWidth` wide) and text, under `title`.
    private mutating func drawHelpBox(title: String, lines: [(String, String)], keyWidth: Int) {
        let content = lines.map { " " + $0.0.padRight(keyWidth) + "  " + $0.1 + " " }
        let boxWidth = min(width - 2, max(DisplayWidth.of(title) + 6, (content.map { DisplayWidth.of($0) }.max() ?? 0) + 2))
        let boxHeight = min(height - 2, content.count + 2)
        guard boxWidth >= 12, boxHeight >= 3 else { return }
        let left = (width - boxWidth) / 2
        let top = (height - boxHeight) / 2
        let inner = boxWidth - 2
        grid.write("┌" + String(repeating: "─", count: inner) + "┐", x: left, y: top, style: .bold)
        grid.write(" \(title) ", x: left + 2, y: top, style: .bold, maxWidth: inner - 2)
        for row in 0..<(boxHeight - 2) {
            grid.write("│", x: left, y: top + 1 + row, style: .bold)
            grid.fill(x: left + 1, y: top + 1 + row, width: inner)
            let line = lines[row]
            grid.write([Span(" " + line.0.padRight(keyWidth) + "  ", .bold), Span(line.1 + " ")],
                       x: left + 1, y: top + 1 + row, maxWidth: inner)
            grid.write("│", x: left + boxWidth - 1, y: top + 1 + row, style: .bold)
        }
        grid.write("└" + String(repeating: "─", count: inner) + "┘", x: left, y: top + boxHeight - 1, style: .bold)
    }
}

import Beacon

extension Renderer {
    /// Two lines: the keys (or the prompt's hints) and the message (or the prompt's input).
    mutating func drawFooter(y: Int) {
        if let prompt = state.prompt {
            drawPrompt(prompt, y: y)
        } else if let confirmation = state.confirmation {
            drawConfirmation(confirmation, y: y)
        } else {
            drawKeys(y: y)
            drawMessage(y: y + 1)
        }
    }

    /// `key:label` items; two spaces apart when they fit, one when not, and the least
    /// used dropped (never `?` and `q`) on very narrow terminals.
    private mutating func drawKeys(y: Int) {
        var items: [(key: String, label: String)]
        let paused = state.selectedDestinationName.map { state.pausedDestinations.contains($0) } ?? false
        if state.view == .deadLetters, state.workbench.detail != nil {
            items = isMonitor
                ? [("↑↓", "scroll"), ("Esc", "back"), ("?", "help"), ("q", "quit")]
                : [("↑↓", "scroll"), ("r", "retry"), ("x", "purge"), ("Esc", "back"), ("?", "help"), ("q", "quit")]
        } else if state.view == .deadLetters {
            items = isMonitor
                ? [("↑↓", "select"), ("⏎", "open"), ("/", "search"), ("d", "close"), ("?", "help"), ("q", "quit")]
                : [("⏎", "open"), ("/", "search"), ("␣", "mark"), ("r", "retry"), ("R", "found"), ("x", "purge"), ("X", "found"),
                   ("d", "close"), ("?", "help"), ("q", "quit")]
        } else if state.view == .eventNames {
            items = [("n", "close"), ("d", "dead"), ("?", "help"), ("q", "quit")]
        } else if state.view == .operatorLog {
            items = [("l", "close"), ("e", "pending"), ("d", "dead"), ("?", "help"), ("q", "quit")]
        } else if state.view == .pendingEvents {
            items = [("↑↓", "select"), ("g/G", "oldest/newest"), ("Tab", "destination"), ("e", "close"), ("?", "help"), ("q", "quit")]
        } else if isMonitor {
            items = [("d", "dead"), ("?", "help"), ("q", "quit")]
        } else if isAttached {
            items = [
                ("f", "flush"), ("p", "policy"), ("o", state.isOffline ? "online" : "offline"), ("P", paused ? "resume" : "pause"),
                ("d", "dead"), ("+/-", "batch"), ("?", "help"), ("q", "quit"),
            ]
        } else {
            items = [
                ("f", "flush"), ("p", "policy"), ("o", state.isOffline ? "online" : "offline"), ("P", paused ? "resume" : "pause"),
                ("d", "dead"), ("b", "burst"), ("+/-", "batch"), ("r", "rate"), ("c", "faults"), ("?", "help"), ("q", "quit"),
            ]
        }
        if state.fleetPosition != nil, state.view == .main { items.insert(("Esc", "engines"), at: 0) }
        func width(separator: Int) -> Int {
            items.reduce(1) { $0 + DisplayWidth.of($1.key) + 1 + DisplayWidth.of($1.label) } + separator * (items.count - 1)
        }
        while width(separator: 1) > self.width - 1, items.count > 2 {
            items.remove(at: items.count - 3)
        }
        let separator = width(separator: 2) <= self.width - 1 ? "  " : " "
        var spans: [Span] = [Span(" ")]
        for (index, item) in items.enumerated() {
            if index > 0 { spans.append(Span(separator)) }
            spans += [Span(item.key, .bold), Span(":" + item.label, .dim)]
        }
        if isMonitor { spans.append(Span("   read-only: keys need a serving engine", .dim)) }
        grid.write(spans, x: 0, y: y, maxWidth: self.width)
    }

    private mutating func drawMessage(y: Int) {
        guard let message = state.message else {
            if let position = state.fleetPosition {
                grid.write(" engine \(position.index + 1) of \(position.count): \(position.name)".elidedRight(toWidth: width - 1),
                           x: 0, y: y, style: .dim)
            }
            return
        }
        let style: Style
        switch message.severity {
        case .info: style = .normal
        case .warning: style = .warn
        case .error: style = .error
        }
        grid.write(" " + message.text.elidedRight(toWidth: width - 2), x: 0, y: y, style: style)
    }

    /// A destructive key waiting for `y`: what it will do, and how to keep things as they are.
    /// The keys always fit: a question too long for the line loses its `live engine:`
    /// prefix first, then its end, never the keys.
    private mutating func drawConfirmation(_ confirmation: DashboardState.Confirmation, y: Int) {
        let question: String
        var prefix = ""
        let keys: [Span]
        let style: Style
        switch confirmation {
        case .purge(let target):
            question = "purge \(DashboardReducer.describe(target)) for good?"
            keys = [Span(" y", .bold), Span(" purge  ", .dim), Span("other key", .bold), Span(" keeps them", .dim)]
            style = .error
        case .engineKey(_, let label):
            prefix = "live engine: "
            question = "\(label)?"
            keys = [Span(" y", .bold), Span(" yes  ", .dim), Span("other key", .bold), Span(" no", .dim)]
            style = .warn
        }
        let room = max(1, width - 2 - keys.reduce(0) { $0 + DisplayWidth.of($1.text) })
        let text = DisplayWidth.of(prefix + question) <= room ? prefix + question : question.elidedRight(toWidth: room)
        grid.write([Span(" " + text + " ", style)] + keys, x: 0, y: y, maxWidth: width)
    }

    /// The hint line (or the refusal) above, the input line with a cursor below.
    private mutating func drawPrompt(_ prompt: Prompt, y: Int) {
        let label: String
        let hint: [Span]
        switch prompt.kind {
        case .policy:
            label = " policy> "
            // The presets, then what typing takes: 77 columns with today's presets.
            hint = [Span(" ")] + DashboardLimits.policyPresets.enumerated().flatMap { index, policy in
                [Span("\(index + 1)", .bold), Span(" " + policy.description + "  ")]
            } + [Span("or e.g. count 50", .dim)]
        case .burstSize:
            label = " burst size> "
            let limits = DashboardLimits.burstSizes
            hint = [Span(" events per burst (b), \(Format.count(limits.lowerBound)) to \(Format.count(limits.upperBound))", .dim)]
        case .deadLetterSearch:
            label = " search> "
            hint = [Span(" dest:", .bold), Span("NAME ", .dim), Span("reason:", .bold), Span("TEXT ", .dim),
                    Span("words (messageId, name, reason, event); empty: all", .dim)]
        }
        if let error = prompt.error {
            grid.write(" " + error.elidedRight(toWidth: width - 2), x: 0, y: y, style: .error)
        } else {
            grid.write(hint, x: 0, y: y, maxWidth: width)
        }
        let keys = "   Enter apply  Esc cancel"
        let room = width - DisplayWidth.of(label) - 2
        let buffer = prompt.buffer.elidedLeft(toWidth: room)
        var x = grid.write(label, x: 0, y: y + 1, style: .bold)
        x += grid.write(buffer, x: x, y: y + 1)
        grid.write(" ", x: x, y: y + 1, style: .inverse)
        if x + 1 + DisplayWidth.of(keys) <= width {
            grid.write(keys, x: x + 1, y: y + 1, style: .dim)
        }
    }
}

import Beacon

extension Renderer {
    /// The dead-letter view (`d`), in place of the history and destinations: one line per
    /// letter (id, destination, HTTP status, age, reason) and the selected one's payload
    /// preview under it, the list scrolled to keep the cursor in sight.
    mutating func drawDeadLetters(y: Int, rows: Int) {
        let letters = snapshot.recentDeadLetters
        let total = max(snapshot.deadLetters, letters.count)
        let shown = total > letters.count ? "· newest \(letters.count) of \(Format.count(total))" : "· \(Format.count(total))"
        drawSectionTitle("Dead letters", detail: shown + (isMonitor ? " · read-only" : ""), y: y)
        guard rows >= 1 else { return }
        guard !letters.isEmpty else {
            grid.write(" no dead letters: every event refused for good would be listed here with its reason", x: 0, y: y + 1,
                       style: .dim, maxWidth: width)
            return
        }
        let cursor = min(state.deadLetterCursor, letters.count - 1)
        // The selected letter takes two lines (its preview under it).
        let listRows = max(1, rows - 1)
        let first = min(max(0, cursor - listRows + 1), max(0, letters.count - listRows))
        var line = y + 1
        for index in first..<letters.count {
            guard line < y + 1 + rows else { break }
            let letter = letters[index]
            let selected = index == cursor
            let age = Format.elapsed(milliseconds: snapshot.time.millisecondsSince1970 - letter.failedAt.millisecondsSince1970)
            let head = (selected ? "▶" : " ") + String(letter.id).padLeft(6) + " " + letter.destination.elidedRight(toWidth: 10).padRight(10)
                + " " + (letter.status.map(String.init) ?? "-").padLeft(3) + " " + age.padLeft(7) + "  "
            let x = grid.write(head, x: 0, y: line, style: selected ? .inverse : .normal, maxWidth: width)
            let reason = (letter.name + ": " + letter.reason).elidedRight(toWidth: max(0, width - x - 1))
            grid.write(reason, x: x, y: line, style: selected ? .inverse : .error, maxWidth: width - x)
            line += 1
            if selected, line < y + 1 + rows {
                grid.write("        " + letter.preview.elidedRight(toWidth: max(0, width - 9)), x: 0, y: line, style: .dim, maxWidth: width)
                line += 1
            }
        }
    }

    /// Per-destination timing in a few words: a stall marker, the oldest pending event's
    /// age, the last success; empty when there is nothing to say.
    func timing(of destination: DestinationStatus) -> [Span] {
        var spans: [Span] = destination.stalled ? [Span("STALLED", .error)] : []
        if let age = destination.oldestPendingAge(at: snapshot.time) {
            spans.append(Span("oldest \(Format.elapsed(milliseconds: age))", age > DestinationStatus.stallThreshold.inMilliseconds ? .warn : .normal))
        }
        if let success = destination.lastSuccessAt {
            spans.append(Span("ok \(Format.elapsed(milliseconds: snapshot.time.millisecondsSince1970 - success.millisecondsSince1970)) ago", .dim))
        }
        return spans
    }
}

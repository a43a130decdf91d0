import Beacon

extension Renderer {
    /// The event-name view (`n`), in place of the history and destinations: the names
    /// this engine accepted most events under since it started, the busiest first, with
    /// their counts, rates and shares, then what the other names account for. What floods
    /// the queue, at a glance.
    mutating func drawEventNames(y: Int, rows: Int) {
        let names = snapshot.eventNames
        // Saturating sums: counts read from an engine's status may be anything.
        let all = (names.map(\.count) + [snapshot.otherEventNames]).reduce(0) { sum, count in
            let (next, overflow) = sum.addingReportingOverflow(max(0, count))
            return overflow ? .max : next
        }
        drawSectionTitle("Event names", detail: "· accepted since the engine started · busiest first", y: y)
        guard rows >= 1 else { return }
        guard !names.isEmpty else {
            let empty = isMonitor
                ? " not known: no engine serves this store (an engine counts the names it accepts)"
                : " no event accepted yet: each name will be listed here with its count and rate"
            grid.write(empty, x: 0, y: y + 1, style: .dim, maxWidth: width)
            return
        }
        let nameWidth = max(8, min(40, width - 36))
        grid.write(" " + "name".padRight(nameWidth) + "events".padLeft(12) + "rate".padLeft(9) + "share".padLeft(8),
                   x: 0, y: y + 1, style: .dim, maxWidth: width)
        var line = y + 2
        let listed = names.prefix(max(0, rows - (snapshot.otherEventNames > 0 ? 2 : 1)))
        for name in listed {
            guard line < y + 1 + rows else { break }
            grid.write([
                Span(" " + name.name.elidedRight(toWidth: nameWidth).padRight(nameWidth), .bold),
                Span(Format.count(name.count).padLeft(12)),
                Span((name.rate.map(Format.rate) ?? "").padLeft(9), .dim),
                Span(share(name.count, of: all).padLeft(8)),
            ], x: 0, y: line, maxWidth: width)
            line += 1
        }
        let hidden = names.dropFirst(listed.count).reduce(max(0, snapshot.otherEventNames)) { sum, name in
            let (next, overflow) = sum.addingReportingOverflow(max(0, name.count))
            return overflow ? .max : next
        }
        if hidden > 0, line < y + 1 + rows {
            grid.write([
                Span(" " + "other names".padRight(nameWidth), .dim), Span(Format.count(hidden).padLeft(12)), Span("".padLeft(9)),
                Span(share(hidden, of: all).padLeft(8), .dim),
            ], x: 0, y: line, maxWidth: width)
        }
    }

    /// `part` of `whole` as a whole percent (`<1 %` for a share too small to round up).
    private func share(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "" }
        let share = Double(part) / Double(whole)
        return part > 0 && share < 0.005 ? "<1 %" : Format.percent(share)
    }
}

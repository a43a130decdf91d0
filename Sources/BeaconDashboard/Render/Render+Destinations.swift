import Beacon

extension Renderer {
    /// One row per destination, shown only when there is more than one.
    mutating func drawDestinations(y: Int, rows: Int) {
        drawSectionTitle("Destinations", y: y)
        let nameWidth = min(16, max(4, snapshot.destinations.map { DisplayWidth.of($0.name) }.max() ?? 4))
        let stateWidth = min(40, max(12, (width - nameWidth - 20) / 2))
        for (row, destination) in snapshot.destinations.prefix(rows).enumerated() {
            let state = describe(destination)
            let marker = row == self.state.selectedDestination && !isMonitor ? "▸" : " "
            var x = grid.write([
                Span(marker + destination.name.padRight(nameWidth), .bold),
                Span(Format.count(destination.depth).padLeft(9)),
                // What it delivers: an unknown rate is left blank, not shown as 0/s.
                Span((destination.deliveryRate.map(Format.rate) ?? "").padLeft(8), .dim),
                Span("  "),
                Span(state.text.padRight(stateWidth), state.style),
                Span("  "),
            ], x: 0, y: y + 1 + row)
            for span in timing(of: destination) where x + DisplayWidth.of(span.text) + 2 < width - 10 {
                x += grid.write([span, Span("  ")], x: x, y: y + 1 + row)
            }
            let note = destination.lastError.map { Span($0, .error) } ?? Span(destination.endpoint, .dim)
            grid.write(note.text.elidedRight(toWidth: width - x - 1), x: x, y: y + 1 + row, style: note.style)
        }
    }
}

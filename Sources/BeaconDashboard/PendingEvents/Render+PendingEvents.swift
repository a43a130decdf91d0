import Beacon
import BeaconWire

extension Renderer {
    /// The pending-events view (`e`), in place of the graph, the history and the
    /// destinations: the queue's oldest events, a line for those between, its newest, and
    /// the selected event's JSON below. What is stuck, and what is arriving.
    mutating func drawPendingEvents(y: Int, rows: Int) {
        let view = state.pendingEvents
        let whose = view.pageDestination ?? state.pendingEventsDestination
        var detail = whose.map { "· for \($0) " } ?? "· for any destination "
        if let page = view.page { detail += "· \(Format.count(page.pending)) pending · oldest first" }
        drawSectionTitle("Pending events", detail: detail, y: y)
        guard rows >= 1 else { return }
        guard !view.isUnavailable else {
            grid.write(" not available: this engine keeps its queue in memory, not in a store", x: 0, y: y + 1, style: .dim, maxWidth: width)
            return
        }
        var line = y + 1
        if let error = view.readError {
            grid.write(" could not read the queue: \(error)", x: 0, y: line, style: .error, maxWidth: width)
            line += 1
        }
        guard let page = view.page else {
            if line < y + 1 + rows { grid.write(" reading the queue…", x: 0, y: line, style: .dim, maxWidth: width) }
            return
        }
        guard !page.events.isEmpty else {
            if line < y + 1 + rows {
                grid.write(" no event pending\(whose.map { " for \($0)" } ?? ""): the queue is empty", x: 0, y: line, style: .dim, maxWidth: width)
            }
            return
        }
        let end = y + 1 + rows
        // The selected event's JSON, wrapped, takes the last rows (up to a third of them).
        let json = view.selected.map { wrapJSON(String(decoding: $0.payload, as: UTF8.self)) } ?? []
        let detailRows = min(json.count, max(1, (end - line) / 3))
        let listEnd = end - (detailRows > 0 ? detailRows + 1 : 0)
        guard line < listEnd else { return }
        // As wide as the longest number listed (sequence numbers reach 2^62: 19 digits).
        let seqWidth = max(6, page.events.map { String($0.sequence).count }.max() ?? 0)
        let nameWidth = max(8, min(20, width - seqWidth - 50))
        grid.write(" " + "seq".padLeft(seqWidth) + "  " + "age".padLeft(7) + "  " + "name".padRight(nameWidth) + "bytes".padLeft(8) + "  event",
                   x: 0, y: line, style: .dim, maxWidth: width)
        line += 1
        // One entry per event, and the gap between the head and the tail.
        var entries: [Int?] = page.head.indices.map { $0 }
        if page.hasGap { entries.append(nil) }
        entries += page.tail.indices.map { page.head.count + $0 }
        let visible = max(1, listEnd - line)
        let cursorEntry = entries.firstIndex(of: view.cursor) ?? 0
        let first = max(0, min(cursorEntry - visible / 2, entries.count - visible))
        for entry in entries.dropFirst(first).prefix(visible) {
            guard line < listEnd else { break }
            guard let index = entry else {
                // Saturating: the count comes from the store.
                let between = page.matching.map { "\(Format.count(max(0, $0 &- page.events.count))) more pending between" }
                    ?? "more that match, not counted"
                grid.write(" " + "…".padLeft(seqWidth) + "  \(between)",
                           x: 0, y: line, style: .dim, maxWidth: width)
                line += 1
                continue
            }
            let event = page.events[index]
            let selected = index == view.cursor
            let (age, overflow) = snapshot.time.millisecondsSince1970.subtractingReportingOverflow(event.createdAt.millisecondsSince1970)
            let preview = PrintableText.line(String(decoding: event.payload, as: UTF8.self))
            grid.write([
                Span((selected ? "›" : " ") + String(event.sequence).padLeft(seqWidth), selected ? .inverse : .normal),
                Span("  " + (overflow ? "?" : Format.age(milliseconds: age)).padLeft(7)),
                Span("  " + PrintableText.line(event.name).elidedRight(toWidth: nameWidth).padRight(nameWidth), .bold),
                Span(Format.bytes(event.payload.count).padLeft(8)),
                Span("  " + preview, .dim),
            ], x: 0, y: line, maxWidth: width)
            line += 1
        }
        guard detailRows > 0, let selected = view.selected else { return }
        let top = end - detailRows - 1
        grid.fill(x: 0, y: top, width: width, character: "┄", style: .dim)
        grid.write(" seq \(selected.sequence) · messageId \(PrintableText.line(selected.messageId)) · \(selected.createdAt.iso8601) ",
                   x: 2, y: top, style: .dim, maxWidth: width - 3)
        for (row, text) in json.prefix(detailRows).enumerated() {
            let last = row == detailRows - 1 && json.count > detailRows
            grid.write(last ? String(text.dropLast()) + "…" : text, x: 0, y: top + 1 + row, maxWidth: width)
        }
    }

    /// `text` on one line, cut into lines of the screen's width.
    private func wrapJSON(_ text: String) -> [String] {
        let room = max(8, width - 2)
        var lines: [String] = []
        var current = ""
        var currentWidth = 0
        for character in PrintableText.line(text) {
            let characterWidth = DisplayWidth.of(String(character))
            if currentWidth + characterWidth > room {
                lines.append(" " + current)
                current = ""
                currentWidth = 0
            }
            current.append(character)
            currentWidth += characterWidth
        }
        if !current.isEmpty { lines.append(" " + current) }
        return lines
    }
}

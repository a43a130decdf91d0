import Beacon
import BeaconWire
import Foundation

extension Renderer {
    /// The detail pane (Enter in the dead-letter view): the letter's ids, every refusal
    /// with its time, status and whole reason, and the whole event as indented JSON,
    /// wrapped to the width and scrolled with ↑/↓.
    mutating func drawDeadLetterDetail(_ detail: DeadLetterWorkbench.Detail, y: Int, rows: Int) {
        let summary = state.workbench.letters(in: snapshot).letters.first { $0.id == detail.id }
        let destination = detail.letter?.destination ?? summary?.destination ?? "?"
        let attempts = detail.letter?.attemptCount ?? summary?.attempts
        let title = "· \(destination)" + (attempts.map { " · \($0) attempt\($0 == 1 ? "" : "s")" } ?? "")
        drawSectionTitle("Dead letter \(detail.id)", detail: title, y: y)
        let lines = detailLines(detail, summary: summary)
        let scroll = min(detail.scroll, max(0, lines.count - rows))
        for (row, line) in lines.dropFirst(scroll).prefix(rows).enumerated() {
            grid.write(line.text, x: 0, y: y + 1 + row, style: line.style, maxWidth: width)
        }
        if lines.count > rows {
            let position = " \(scroll + 1)–\(min(lines.count, scroll + rows)) of \(lines.count) "
            grid.write(position, x: max(0, width - DisplayWidth.of(position) - 2), y: y, style: .dim)
        }
    }

    /// The pane's lines, already wrapped to the width.
    private func detailLines(_ detail: DeadLetterWorkbench.Detail, summary: DeadLetterSummary?) -> [Span] {
        var lines: [Span] = []
        func add(_ text: String, _ style: Style = .normal, indent: Int = 1) {
            lines += wrap(PrintableText.line(text), indent: indent).map { Span($0, style) }
        }
        guard let letter = detail.letter else {
            guard let summary else {
                add("this letter is no longer in the store (retried or purged)", .dim)
                return lines
            }
            add("messageId \(summary.messageId)   name \(summary.name)")
            add("\(summary.status.map { "HTTP \($0)" } ?? "no HTTP status")  \(summary.reason)", .error)
            add(summary.preview, .dim)
            add("reading the whole letter from the store…", .dim)
            return lines
        }
        add("messageId \(letter.event.messageId)")
        add("name \(letter.event.name)   \(Format.bytes(letter.event.payloadCount)) of JSON")
        for attempt in letter.attempts {
            let when = Format.timeOfDay(millisecondsSince1970: attempt.failedAt.millisecondsSince1970)
            let status = attempt.status.map { "HTTP \($0)" } ?? "no HTTP status"
            add("attempt \(attempt.number)  \(when) UTC  \(status)  \(attempt.reason)", .error)
        }
        add("event:", .bold)
        // Deliberate: a payload that is not JSON (a damaged store) is shown as text.
        if let event = try? JSONDecoder().decode(JSONValue.self, from: Data(letter.event.payload)) {
            for line in Self.indentedJSON(event) { add(line, indent: 3) }
        } else {
            add(String(decoding: letter.event.payload, as: UTF8.self), .dim, indent: 3)
        }
        return lines
    }

    /// `text` cut into lines of the width at spaces (a word longer than a line is cut
    /// where it must), each after `indent` spaces.
    private func wrap(_ text: String, indent: Int) -> [String] {
        let room = max(8, width - indent - 1)
        var lines: [String] = []
        var current: [Character] = []
        var currentWidth = 0
        for character in text {
            let characterWidth = DisplayWidth.of(String(character))
            if currentWidth + characterWidth > room {
                // Break after the last space when there is one; the word goes on.
                if let space = current.lastIndex(of: " "), space > 0 {
                    lines.append(String(current[..<space]))
                    current = Array(current[(space + 1)...])
                } else {
                    lines.append(String(current))
                    current = []
                }
                currentWidth = current.reduce(0) { $0 + DisplayWidth.of(String($1)) }
            }
            current.append(character)
            currentWidth += characterWidth
        }
        lines.append(String(current))
        let padding = String(repeating: " ", count: indent)
        return lines.map { padding + $0 }
    }

    /// `value` as indented JSON, two spaces a level, keys sorted.
    static func indentedJSON(_ value: JSONValue, indent: String = "", key: String? = nil, last: Bool = true) -> [String] {
        let prefix = indent + (key.map { JSONValue.string($0).jsonString + ": " } ?? "")
        let comma = last ? "" : ","
        switch value {
        case .object(let members) where !members.isEmpty:
            let keys = members.keys.sorted()
            return [prefix + "{"] + keys.enumerated().flatMap { index, name in
                indentedJSON(members[name] ?? .null, indent: indent + "  ", key: name, last: index == keys.count - 1)
            } + [indent + "}" + comma]
        case .array(let items) where !items.isEmpty:
            return [prefix + "["] + items.enumerated().flatMap { index, item in
                indentedJSON(item, indent: indent + "  ", last: index == items.count - 1)
            } + [indent + "]" + comma]
        default:
            return [prefix + value.jsonString + comma]
        }
    }
}

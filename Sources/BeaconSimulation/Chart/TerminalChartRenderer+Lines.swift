/// The x-axis, time label and legend lines of ``TerminalChartRenderer``.
extension TerminalChartRenderer {
    /// The rule under the plot: time ticks, and step boundaries (which win where both fall).
    func axisLine(_ ticks: ChartTicks, columns: Int) -> String {
        var cells = [Character](repeating: glyphs.rule, count: columns)
        for value in ticks.values { cells[data.column(of: value, columns: columns)] = glyphs.timeTick }
        for step in data.steps {
            cells[data.column(of: step.start, columns: columns)] = glyphs.boundary
            cells[data.column(of: step.end, columns: columns)] = glyphs.boundary
        }
        return String(cells)
    }

    /// Time labels starting under their ticks; a label that would touch the previous one
    /// or run past the plot is left out.
    func timeLabels(_ ticks: ChartTicks, columns: Int) -> String {
        var cells = [Character](repeating: " ", count: columns)
        var free = 0
        for value in ticks.values {
            let label = Array(ChartFormat.time(value, minutes: ticks.usesMinutes))
            let column = data.column(of: value, columns: columns)
            guard column >= free, column + label.count <= columns else { continue }
            cells.replaceSubrange(column..<(column + label.count), with: label)
            free = column + label.count + 1
        }
        return String(cells)
    }

    /// Steps in order with their code and shading, marks, "?" when some depth was unknown,
    /// and the deepest known depth at the right; the left part is cut to fit.
    func legend(hasUnknown: Bool) -> String {
        var entries = data.steps.enumerated().map { index, step in
            let shade = glyphs.shading[step.condition].map { $0 == " " ? "" : String($0) } ?? ""
            return String(Self.code(index)) + shade + " " + name(step.name)
        }
        entries += data.marks.map { String(glyphs.mark) + " " + name($0.label) }
        if hasUnknown { entries.append("\(glyphs.unknown) unknown") }
        let summary = "max depth " + (data.maxDepth.map(ChartFormat.grouped) ?? "?")
        let listed = listing(entries, room: width - summary.count - 2)
        return listed + String(repeating: " ", count: max(2, width - listed.count - summary.count)) + summary
    }

    /// As many whole `entries` as fit in `room` characters, two spaces apart; the first that
    /// does not fit is cut to the room left, or replaced by the ellipsis when little is left.
    func listing(_ entries: [String], room: Int) -> String {
        var text = ""
        for entry in entries {
            let separator = text.isEmpty ? "" : "  "
            let left = room - text.count - separator.count
            if entry.count <= left {
                text += separator + entry
                continue
            }
            if left >= 6 {
                text += separator + ChartText.truncated(entry, to: left, ellipsis: glyphs.ellipsis)
            } else if room - text.count - 1 >= glyphs.ellipsis.count {
                text += " " + glyphs.ellipsis
            }
            break
        }
        return text
    }

    /// A user's name cleaned for one terminal line and cut to 24 characters.
    func name(_ text: String) -> String {
        ChartText.truncated(ChartText.terminalSafe(text), to: 24, ellipsis: glyphs.ellipsis)
    }

    /// `text` padded with spaces to `width` characters, on the left when `leading`.
    func pad(_ text: String, to width: Int, leading: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return leading ? padding + text : text + padding
    }

    /// `line` made exactly ``width`` characters. Joined pieces can merge into fewer
    /// characters than they counted apart (a user's text is cleaned so they should not);
    /// if padding cannot fix that, non-ASCII characters give way to "?".
    func fit(_ line: String) -> String {
        var fitted = line.count > width ? String(line.prefix(width)) : line
        fitted += String(repeating: " ", count: max(0, width - fitted.count))
        guard fitted.count != width else { return fitted }
        let ascii = String(String.UnicodeScalarView(line.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? $0 : "?" }))
        let cut = ascii.count > width ? String(ascii.prefix(width)) : ascii
        return cut + String(repeating: " ", count: max(0, width - cut.count))
    }
}

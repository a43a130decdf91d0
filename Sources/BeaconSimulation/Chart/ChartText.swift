/// Text from a user's scenario file made safe to draw: for XML, and for a terminal line.
enum ChartText {
    /// `text` on one line with what XML 1.0 forbids dropped: C0 and C1 control characters
    /// and U+FFFE/U+FFFF are removed; tab, newline and carriage return become spaces.
    /// The result is not escaped yet (see ``xmlEscaped(_:)``) so that it can be truncated.
    static func xmlSafe(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: scalars.append(" ")
            case 0x00..<0x20, 0x7F...0x9F, 0xFFFE, 0xFFFF: continue
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// `text` with & < > " ' replaced by entities, for element content and attribute values.
    /// Call it on text that went through ``xmlSafe(_:)``.
    static func xmlEscaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` for one terminal line: control characters become spaces, and characters that
    /// could join a neighbour into one grapheme (a leading combining mark, a lone regional
    /// indicator, format characters such as a zero-width joiner at either end) become "?".
    static func terminalSafe(_ text: String) -> String {
        var result = ""
        for character in text {
            let scalars = character.unicodeScalars
            guard let first = scalars.first, let last = scalars.last else { continue }
            if scalars.contains(where: { $0.properties.generalCategory == .control }) {
                result.append(" ")
            } else if joinsPrevious(first) || joinsNext(last)
                || (scalars.count == 1 && (0x1F1E6...0x1F1FF).contains(first.value)) {
                result.append("?")
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `text` cut to at most `limit` characters, ending in `ellipsis` when it was cut.
    /// Returns "" when `limit` leaves no room for one character and the ellipsis.
    static func truncated(_ text: String, to limit: Int, ellipsis: String) -> String {
        if text.count <= limit { return text }
        let room = limit - ellipsis.count
        guard room >= 1 else { return "" }
        return String(text.prefix(room)) + ellipsis
    }

    /// Whether a character starting with `scalar` would merge into the character before it.
    private static func joinsPrevious(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format: return true
        default: return isHangulJamo(scalar)
        }
    }

    /// Whether a character ending in `scalar` would take the character after it in
    /// (a zero-width joiner, a prepended concatenation mark, a Hangul jamo).
    private static func joinsNext(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.generalCategory == .format || isHangulJamo(scalar) { return true }
        let prepend: [ClosedRange<UInt32>] = [
            0x0D4E...0x0D4E, 0x111C2...0x111C3, 0x1193F...0x1193F, 0x11941...0x11941,
            0x11A3A...0x11A3A, 0x11A84...0x11A89, 0x11D46...0x11D46, 0x11F02...0x11F02,
        ]
        return prepend.contains { $0.contains(scalar.value) }
    }

    private static func isHangulJamo(_ scalar: Unicode.Scalar) -> Bool {
        (0x1100...0x11FF).contains(scalar.value) || (0xA960...0xA97F).contains(scalar.value)
            || (0xD7B0...0xD7FF).contains(scalar.value)
    }
}

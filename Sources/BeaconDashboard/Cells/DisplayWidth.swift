/// Terminal column widths of characters, as `wcwidth` would give them for the common cases.
///
/// Kept in the dashboard (not taken from the C library) so renders are identical on every
/// machine and in every locale.
enum DisplayWidth {
    /// Columns `character` takes: 2 for East Asian wide and emoji, 0 for controls, else 1.
    static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return isWide(value) ? 2 : 1
    }

    /// Columns `text` takes.
    static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension String {
    /// Fits the text into `width` columns, cutting the end and marking the cut with `…`.
    func elidedRight(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        guard DisplayWidth.of(self) > width else { return self }
        var result = ""
        var used = 0
        for character in self {
            let columns = DisplayWidth.of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// Fits the text into `width` columns, cutting the start and marking the cut with `…`
    /// (for paths, whose end says the most).
    func elidedLeft(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        guard DisplayWidth.of(self) > width else { return self }
        var kept: [Character] = []
        var used = 0
        for character in reversed() {
            let columns = DisplayWidth.of(character)
            if used + columns > width - 1 { break }
            kept.append(character)
            used += columns
        }
        return "…" + String(kept.reversed())
    }

    /// Pads with spaces on the left to `width` columns (right-aligns); longer text is elided.
    func padLeft(_ width: Int) -> String {
        let text = elidedRight(toWidth: width)
        return String(repeating: " ", count: max(0, width - DisplayWidth.of(text))) + text
    }

    /// Pads with spaces on the right to `width` columns (left-aligns); longer text is elided.
    func padRight(_ width: Int) -> String {
        let text = elidedRight(toWidth: width)
        return text + String(repeating: " ", count: max(0, width - DisplayWidth.of(text)))
    }
}

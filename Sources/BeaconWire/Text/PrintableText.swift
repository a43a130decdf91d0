/// The one sanitizer for text from outside (a server's body, a refusal's reason, a user's
/// argument echoed back, a stored name) on its way to a terminal or a log line: every
/// scalar that could move the cursor, retitle or clear the screen, break the line or
/// reorder what follows is written as `\u{…}` instead.
///
/// ```swift
/// PrintableText.line("boom\u{1B}[2J")   // "boom\\u{1b}[2J"
/// ```
public enum PrintableText {
    /// `text` on one line with every unsafe scalar (``isUnsafe(_:)``) written as `\u{…}`
    /// (lowercase hex): safe to print, and still says what was there. Applying it twice
    /// changes nothing more.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    /// Compact JSON (no whitespace between tokens, as ``JSONWriter`` writes it) with every
    /// unsafe scalar written as a JSON escape (`\u009b`): the same value, safe to print.
    /// Unsafe scalars can only sit inside strings there, where the escape means the same.
    public static func compactJSON(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar) else {
                shown.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            shown.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
        }
        return String(shown)
    }

    /// Whether `scalar` must not reach a terminal as it is: a control character (C0, DEL,
    /// C1: ESC, BEL, CSI, newline, tab…), a line or paragraph separator, or a bidirectional
    /// control (which reorders the text after it).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return scalar.properties.isBidiControl
        }
    }
}

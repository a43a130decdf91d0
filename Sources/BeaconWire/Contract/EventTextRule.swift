/// What the strings of an event may hold: one rule, anywhere in the event (its name,
/// ids, property names and values at any depth), applied by the engine's `track`, the
/// agent's ingest and the collector before either of its stores (SQLite, PostgreSQL).
///
/// - Any Unicode text, control characters included (JSON writes them as escapes), but
///   U+0000: PostgreSQL's `text` and `jsonb` cannot hold a NUL, and C strings end there.
///   A store that took it in one place and refused it in another made one event hold a
///   destination for an hour and a half.
/// - Whole characters only: a `\u` escape of a UTF-16 surrogate pairs a high one with
///   the low one after it. A lone surrogate is no character: Swift strings cannot hold
///   it, and PostgreSQL and most JSON decoders refuse it.
///
/// An event that breaks the rule is refused alone (code ``rejectionCode``): the engine
/// throws at `track`, the collector answers 400 naming it, and a sender dead-letters it
/// at once instead of retrying a batch that cannot be stored.
public enum EventTextRule {
    /// What is wrong with a string.
    public enum Problem: Sendable, Hashable {
        /// U+0000 (a `\u0000` escape).
        case nul
        /// A `\u` escape of a surrogate without its pair.
        case loneSurrogate
    }

    /// The collector's rejection code for an event that breaks the rule.
    public static let rejectionCode = "invalid_text"

    /// The problem with `text`, a Swift string (which holds whole characters only).
    @inlinable
    public static func problem(in text: String) -> Problem? {
        // Over the contiguous bytes (a native string's, always): the generic walk of the
        // UTF-8 view took a tenth of `track`.
        let hasNul = text.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? text.utf8.contains(0)
        return hasNul ? .nul : nil
    }

    /// The problem with a JSON `\u` escape of `unit`, when `next` is the escape right after
    /// it, if there is one (a high surrogate needs a low one there). `nil` when it is fine.
    @inlinable
    public static func problem(escape unit: UInt16, next: UInt16?) -> Problem? {
        switch unit {
        case 0: return .nul
        case 0xD800...0xDBFF:
            guard let next, (0xDC00...0xDFFF).contains(next) else { return .loneSurrogate }
            return nil
        case 0xDC00...0xDFFF: return .loneSurrogate
        default: return nil
        }
    }

    /// The end of a sentence that says what is wrong, for error messages and rejections.
    public static func explanation(_ problem: Problem) -> String {
        switch problem {
        case .nul:
            return "holds a NUL character (U+0000), which the stores cannot keep; remove it"
        case .loneSurrogate:
            return "holds a lone UTF-16 surrogate in a \\u escape, which is no character; send whole characters"
        }
    }
}

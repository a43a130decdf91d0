/// Which dead letters a search finds: those of one destination, whose reason contains a
/// text, and whose messageId, event name, reason or event JSON contains another. Every
/// part given must hold; matching ignores ASCII case (as SQLite's `lower` does).
///
/// ```swift
/// let query = try DeadLetterQuery(parsing: "dest:main reason:event_too_large 8f3a")
/// let page = try await queue.deadLetters(matching: query, limit: 50)
/// ```
public struct DeadLetterQuery: Sendable, Hashable, CustomStringConvertible {
    /// Only this destination's letters (exact name).
    public var destination: String?
    /// Only letters whose reason contains this.
    public var reason: String?
    /// Only letters whose messageId, name, reason or event JSON contains this.
    public var text: String?

    /// The longest text a part may have, in bytes.
    public static let maxPartBytes = 1024

    public init(destination: String? = nil, reason: String? = nil, text: String? = nil) {
        self.destination = destination
        self.reason = reason
        self.text = text
    }

    /// Whether the query selects every letter.
    public var isEmpty: Bool { destination == nil && reason == nil && text == nil }

    /// Whether `letter` passes every part.
    public func matches(_ letter: DeadLetter) -> Bool {
        if let destination, letter.destination != destination { return false }
        if let reason, !Self.contains(letter.reason, reason) { return false }
        if let text {
            let payload = String(decoding: letter.event.payload, as: UTF8.self)
            guard [letter.event.messageId, letter.event.name, letter.reason, payload].contains(where: { Self.contains($0, text) })
            else { return false }
        }
        return true
    }

    /// The query as it is typed: `dest:NAME reason:TEXT TEXT`.
    public var description: String {
        var parts: [String] = []
        if let destination { parts.append("dest:" + destination) }
        if let reason { parts.append("reason:" + reason) }
        if let text { parts.append(text) }
        return parts.joined(separator: " ")
    }

    /// Whether `haystack` contains `needle`, ASCII case ignored.
    public static func contains(_ haystack: String, _ needle: String) -> Bool {
        asciiLowercased(haystack).contains(asciiLowercased(needle))
    }

    /// `text` with A–Z lowered and every other byte kept (SQLite's `lower` without ICU).
    public static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

extension DeadLetterQuery {
    /// Why a typed query was refused.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Reads `dest:NAME` (or `destination:`), `reason:TEXT` and free words (joined by
    /// single spaces into ``text``) from what an operator typed.
    public init(parsing typed: String) throws(ParseError) {
        self.init()
        guard !typed.contains("\0") else { throw ParseError(description: "a search cannot hold a NUL byte") }
        var words: [String] = []
        for word in typed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
            if let value = Self.value(of: word, prefixes: ["dest:", "destination:"]) {
                guard !value.isEmpty else { throw ParseError(description: "dest: needs a destination name") }
                destination = value
            } else if let value = Self.value(of: word, prefixes: ["reason:"]) {
                guard !value.isEmpty else { throw ParseError(description: "reason: needs a text") }
                reason = value
            } else {
                words.append(word)
            }
        }
        if !words.isEmpty { text = words.joined(separator: " ") }
        for part in [destination, reason, text] {
            guard let part, part.utf8.count > Self.maxPartBytes else { continue }
            throw ParseError(description: "a search part is at most \(Self.maxPartBytes) bytes")
        }
    }

    private static func value(of word: String, prefixes: [String]) -> String? {
        for prefix in prefixes where word.lowercased().hasPrefix(prefix) { return String(word.dropFirst(prefix.count)) }
        return nil
    }
}

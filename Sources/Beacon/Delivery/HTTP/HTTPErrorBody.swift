import BeaconWire
import Foundation

/// What a destination said in an error response's body: a message and, for a 400 from
/// Beacon's collector, the events it refused (the wire contract's ``ErrorResponse``).
/// Other servers send `{"message":...}`, `{"error":...}` or plain text; all are read
/// leniently.
struct HTTPErrorBody: Sendable, Hashable {
    /// The server's message, cleaned up for one log line, if it gave one.
    var message: String?
    /// The `rejected` list, or `nil` when the body has none.
    var rejected: [EventRejection]?

    /// The longest message kept, in characters.
    static let maximumMessageLength = 200
    /// Bodies larger than this are not parsed (a rejection list for a 500 KB batch is far smaller).
    static let maximumParsedBytes = 4 * 1024 * 1024

    init(message: String? = nil, rejected: [EventRejection]? = nil) {
        self.message = message
        self.rejected = rejected
    }

    /// Reads `body` leniently; never fails (an unreadable body has no message and no list).
    init(parsing body: [UInt8]) {
        guard !body.isEmpty, body.count <= Self.maximumParsedBytes else {
            self.init()
            return
        }
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            // Deliberate: not JSON is a normal case (proxies answer with text or HTML).
            self.init(message: Self.plainTextMessage(body))
            return
        }
        guard let response = ErrorResponse(json: json) else {
            self.init()
            return
        }
        let rejected = response.rejected?.map { entry in
            var entry = entry
            entry.reason = Self.clean(entry.reason) ?? ""
            return entry
        }
        self.init(message: (response.message ?? response.error).flatMap(Self.clean), rejected: rejected)
    }

    /// The first line of a short text body, unless it looks like HTML.
    static func plainTextMessage(_ body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(1024), as: UTF8.self)
        guard let firstLine = text.split(whereSeparator: \.isNewline).first else { return nil }
        let line = String(firstLine).trimmingWhitespace()
        guard !line.hasPrefix("<") else { return nil }
        return clean(line)
    }

    /// `text` on one line, what ``PrintableText`` deems unsafe (line breaks, tabs, escape
    /// sequences) replaced by spaces, at most ``maximumMessageLength`` characters; `nil`
    /// when nothing readable is left.
    static func clean(_ text: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(PrintableText.isUnsafe(scalar) ? " " : scalar)
        }
        var result = String(scalars).trimmingWhitespace()
        guard !result.isEmpty else { return nil }
        if result.count > maximumMessageLength {
            result = String(result.prefix(maximumMessageLength - 1)) + "…"
        }
        return result
    }
}

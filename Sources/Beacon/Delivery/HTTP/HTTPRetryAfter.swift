import BeaconWire

/// Reads an HTTP `Retry-After` header (RFC 9110 §10.2.3) as a delay.
///
/// Accepts delta-seconds (`120`) and an IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`),
/// which is taken relative to `now`; a date in the past means "now" (zero). The delay is
/// capped at ``maximum`` (10 minutes by default) so a misconfigured or hostile server
/// cannot park a destination for days; the batcher's backoff still applies on top.
/// The obsolete RFC 850 and asctime date forms, and anything else unreadable, count as
/// "no Retry-After" (`nil`), so the batcher's own backoff decides.
public struct HTTPRetryAfter: Sendable, Hashable {
    /// The longest delay a `Retry-After` can ask for: 10 minutes.
    public static let defaultMaximum: Duration = .seconds(600)

    /// The cap applied to every parsed delay.
    public var maximum: Duration

    /// Creates a parser that caps delays at `maximum`.
    public init(maximum: Duration = HTTPRetryAfter.defaultMaximum) {
        self.maximum = maximum
    }

    /// The delay that `value` asks for, capped at ``maximum``, or `nil` when it is unreadable.
    public func delay(from value: String, now: Timestamp) -> Duration? {
        let text = value.trimmingWhitespace()
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Too many digits for an Int is still "a very long time": cap it.
            guard let seconds = Int64(text) else { return maximum }
            return min(.seconds(seconds), maximum)
        }
        guard let date = HTTPDate.parseIMFFixdate(text) else { return nil }
        let milliseconds = date.millisecondsSince1970 - now.millisecondsSince1970
        return min(.milliseconds(max(0, milliseconds)), maximum)
    }
}

extension String {
    /// This string without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

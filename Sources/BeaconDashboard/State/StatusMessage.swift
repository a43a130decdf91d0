import Beacon

/// A one-line message shown at the bottom after a key press.
public struct StatusMessage: Sendable, Hashable {
    /// How much the message matters.
    public enum Severity: Sendable, Hashable {
        case info, warning, error
    }

    /// The text.
    public var text: String
    /// How much it matters (decides its style).
    public var severity: Severity

    /// A message with `text` and `severity`.
    public init(_ text: String, severity: Severity = .info) {
        self.text = text
        self.severity = severity
    }
}

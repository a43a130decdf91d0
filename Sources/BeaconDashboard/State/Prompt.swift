import Beacon

/// A line of text being typed at the bottom of the dashboard.
public struct Prompt: Sendable, Hashable {
    /// What the typed text is for.
    public enum Kind: Sendable, Hashable {
        /// A flush policy (`p`): a preset number or text for `FlushPolicy(parsing:)`.
        case policy
        /// The number of events `b` sends (`B`).
        case burstSize
        /// The dead-letter search (`/` in the dead-letter view): `dest:NAME reason:TEXT TEXT`.
        case deadLetterSearch
    }

    /// What the text is for.
    public var kind: Kind
    /// The text typed so far.
    public var buffer: String = ""
    /// Why the last Enter was refused, if it was.
    public var error: String?

    /// An empty prompt of `kind`.
    public init(kind: Kind, buffer: String = "", error: String? = nil) {
        self.kind = kind
        self.buffer = buffer
        self.error = error
    }
}

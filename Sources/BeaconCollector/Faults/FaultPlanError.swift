/// A fault plan with a value out of range; ``message`` names the field and the fix.
public struct FaultPlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One readable sentence naming the bad field and its allowed range.
    public var message: String

    /// Creates an error with its message.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

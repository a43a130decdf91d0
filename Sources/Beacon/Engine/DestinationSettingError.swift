/// A ``Destination`` setting out of its range, such as `maxConcurrentRequests` outside 1...16.
public struct DestinationSettingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what is accepted: `maxConcurrentRequests must be 1...16, not 0`.
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}

import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A collector that cannot start; ``message`` names the problem and the fix.
public struct CollectorSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One readable sentence naming the problem and the fix.
    public var message: String

    /// Creates an error with its message.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

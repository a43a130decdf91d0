/// Why a control request got no response.
public struct ControlClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Nothing listens at the socket path (no file, or a stale one).
        case noEngine
        /// The socket could not be reached or the connection broke.
        case connection
        /// The engine answered something that is not a response.
        case badResponse
    }

    public var kind: Kind
    /// One line naming the problem.
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Why the control channel could not start.
public struct ControlServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The socket path.
    public var path: String
    /// What went wrong, and where there is one, the fix.
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot serve the control channel at \(path): \(reason)" }
}

/// Why the engine refused a control request, in words an operator can act on.
public struct ControlRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason.
    public var reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }
}

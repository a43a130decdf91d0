/// Why a tracking plan could not be read: where in the file (a JSON Pointer) and what is wrong.
public struct PlanError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path.isEmpty ? "the plan" : path): \(reason)" }
}

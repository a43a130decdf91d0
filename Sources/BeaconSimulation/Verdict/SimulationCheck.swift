/// One invariant or expectation of a run, and whether it held.
public struct SimulationCheck: Sendable, Hashable, Codable {
    /// A short stable name (`accounted-for:main`, `maxDepth`).
    public var name: String
    /// Whether it held.
    public var holds: Bool
    /// What was found, in words: the figures, and the first offending `messageId`s.
    public var detail: String

    public init(name: String, holds: Bool, detail: String) {
        self.name = name
        self.holds = holds
        self.detail = detail
    }
}

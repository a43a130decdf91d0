/// What `/health` says about the store.
public struct StoreHealth: Sendable, Hashable {
    /// The store's kind for the health body (`"postgres"`), or `nil` to leave it out.
    public var kind: String?
    /// Why the store cannot be reached now, or `nil` when it can.
    public var problem: String?

    /// Creates a health report.
    public init(kind: String?, problem: String?) {
        self.kind = kind
        self.problem = problem
    }

    /// A store that is always there (an embedded SQLite file): `/health` says nothing about it.
    public static let embedded = StoreHealth(kind: nil, problem: nil)
}

/// What `/health` says about the store.
struct StoreHealth: Sendable, Hashable {
    /// The store's kind for the health body (`"postgres"`), or `nil` to leave it out.
    var kind: String?
    /// Why the store cannot be reached now, or `nil` when it can.
    var problem: String?

    /// A store that is always there (an embedded SQLite file): `/health` says nothing about it.
    static let embedded = StoreHealth(kind: nil, problem: nil)
}

/// The SQLite store as a ``CollectorStore``: an embedded file is always reachable, but its
/// disk may refuse writes (full, read-only), which `/health` reports until one succeeds.
/// It needs no background work.
extension EventStore: CollectorStore {
    func health() async -> StoreHealth {
        guard let problem = writeProblem.withLock({ $0 }) else { return .embedded }
        return StoreHealth(kind: "sqlite", problem: "the last write failed: \(problem)")
    }

    func run() async {}
}

/// The SQLite store as a ``CollectorStore``: an embedded file is always reachable, and it
/// needs no background work.
extension EventStore: CollectorStore {
    func health() async -> StoreHealth { .embedded }

    func run() async {}
}

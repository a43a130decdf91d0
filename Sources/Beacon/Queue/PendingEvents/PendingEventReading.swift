/// Where the console's pending-events view reads the queue's head and tail: a
/// ``StoreReader`` on the store (read-only, whoever serves it).
public protocol PendingEventReading: Sendable {
    /// The oldest and newest events the query selects.
    func pendingEvents(_ query: PendingEventQuery) async throws(StorageError) -> PendingEventsPage
}

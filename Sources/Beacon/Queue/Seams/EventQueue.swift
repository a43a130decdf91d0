import BeaconWire

/// Durable storage of events between `track` and delivery: the seam between the tracker,
/// the batchers and the store. Beacon ships ``SQLiteEventQueue`` and ``InMemoryEventQueue``.
///
/// It is four narrow seams, each what one user needs: ``EventAppender`` (the tracker),
/// ``DeliveryLog`` (a batcher: read, settle, the queue's facts), ``DeadLetterQueue``
/// (`beacon dead`, the workbench) and ``QueueAdministration`` (the engine and its
/// operators). A wrapper or a test double implements the one its user takes.
public protocol EventQueue: EventAppender, DeliveryLog, DeadLetterQueue, QueueAdministration {}

extension EventQueue {
    /// Queues that do not implement it refuse with a storage error that says so.
    public func retryDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        throw StorageError(kind: .other, message: "\(location) cannot retry dead letters (\(type(of: self)) does not implement it)")
    }

    public func purgeDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        throw StorageError(kind: .other, message: "\(location) cannot purge dead letters (\(type(of: self)) does not implement it)")
    }

    /// From the counts in memory.
    public func deadLetterCount() async throws(StorageError) -> Int { depth.deadLetters }
}

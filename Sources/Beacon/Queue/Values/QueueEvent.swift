import BeaconWire

/// What a queue tells its listeners.
public enum QueueEvent: Sendable, Hashable {
    /// A transaction committed this many events.
    case committed(count: Int, depth: QueueDepth)
    /// The overflow policy dropped events.
    case dropped(count: Int, reason: String, depth: QueueDepth)
    /// A batch was settled.
    case settled(BatchSettlement, depth: QueueDepth)
    /// The store is failing; events wait in memory.
    case storageProblem(StorageProblem)
    /// The store works again.
    case storageRecovered(depth: QueueDepth)
    /// An operator retried or purged dead letters (retried ones are queued again).
    case deadLettersChanged(DeadLetterChange, depth: QueueDepth)
}

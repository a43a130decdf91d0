import BeaconWire
import DequeModule
import Synchronization

/// A queue in memory: same contract as ``SQLiteEventQueue`` (group commit, leases,
/// settlement, dead letters, history), nothing survives the process. For tests, and for
/// processes that prefer losing events on a crash to touching the disk.
public final class InMemoryEventQueue: EventQueue {
    public let location = "in memory"
    private let buffer: GroupCommitBuffer
    private let storage: Mutex<Storage>
    private let listeners = Mutex<[@Sendable (QueueEvent) -> Void]>([])

    private struct Storage {
        var events = Deque<QueuedEvent>()
        var bytes = 0
        var nextSeq: Int64 = 1
        var totals = QueueTotals()
        var deadLetters: [DeadLetter] = []
        var batches: [BatchRecord] = []
        var lastBatchID: Int64 = 0
        var maxEvents: Int
    }

    /// A queue holding at most `maxQueuedEvents` (oldest dropped past that).
    public init(maxQueuedEvents: Int = 1_000_000, memoryBufferCapacity: Int = 10_000) {
        self.storage = Mutex(Storage(maxEvents: maxQueuedEvents))
        var configuration = GroupCommitBuffer.Configuration()
        configuration.capacity = memoryBufferCapacity
        let box = DepthBox()
        self.buffer = GroupCommitBuffer(configuration: configuration, label: "beacon.memory-queue.writer") { group in
            box.queue?.commit(group)
            return nil
        }
        box.queue = self
    }

    private func commit(_ group: [PendingEvent]) {
        let dropped = storage.withLock { storage -> Int in
            for event in group {
                storage.events.append(QueuedEvent(
                    sequence: storage.nextSeq, messageId: event.messageId, name: event.name, payload: event.payload))
                storage.nextSeq += 1
                storage.bytes += event.payload.count
            }
            storage.totals.committed += group.count
            var dropped = 0
            while storage.events.count > storage.maxEvents {
                storage.bytes -= storage.events.removeFirst().payload.count
                dropped += 1
            }
            storage.totals.dropped += dropped
            return dropped
        }
        let depth = self.depth
        for listener in listeners.withLock({ $0 }) {
            listener(.committed(count: group.count, depth: depth))
            if dropped > 0 { listener(.dropped(count: dropped, reason: "queue full (overflow policy: drop oldest)", depth: depth)) }
        }
    }

    public func append(_ event: PendingEvent) -> CommitTicket { buffer.append(event) }

    public func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError) {
        guard await buffer.waitForCommit(ticket) else { throw .droppedBeforeCommit }
    }

    public func waitForPendingWrites() async { await buffer.waitForPendingWrites() }

    public var depth: QueueDepth {
        let buffered = buffer.bufferedCount
        let accepted = buffer.acceptedCount
        return storage.withLock { storage in
            var totals = storage.totals
            totals.accepted = accepted
            return QueueDepth(events: storage.events.count, bytes: storage.bytes, buffered: buffered, totals: totals)
        }
    }

    public func makeBatchID() -> Int64 {
        storage.withLock { storage in
            storage.lastBatchID += 1
            return storage.lastBatchID
        }
    }

    public func peek(limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        storage.withLock { storage in
            var events: [QueuedEvent] = []
            var bytes = 0
            for event in storage.events.prefix(max(1, limit)) {
                if !events.isEmpty, bytes + event.payload.count > maxBytes { break }
                bytes += event.payload.count
                events.append(event)
            }
            return events
        }
    }

    public func settle(_ settlement: BatchSettlement) async throws(StorageError) {
        let remove = Set(settlement.delivered)
        let dead = Set(settlement.deadLetters.map(\.event.sequence))
        storage.withLock { storage in
            var kept = Deque<QueuedEvent>()
            for event in storage.events {
                if remove.contains(event.sequence) {
                    storage.totals.delivered += 1
                    storage.bytes -= event.payload.count
                } else if dead.contains(event.sequence) {
                    storage.totals.deadLettered += 1
                    storage.bytes -= event.payload.count
                } else {
                    kept.append(event)
                }
            }
            storage.events = kept
            storage.deadLetters.append(contentsOf: settlement.deadLetters)
            storage.batches.append(settlement.record)
            if storage.batches.count > 1000 { storage.batches.removeFirst(storage.batches.count - 1000) }
        }
        let depth = self.depth
        for listener in listeners.withLock({ $0 }) { listener(.settled(settlement, depth: depth)) }
    }

    public func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter] {
        storage.withLock { Array($0.deadLetters.suffix(limit).reversed()) }
    }

    public func addListener(_ listener: @escaping @Sendable (QueueEvent) -> Void) {
        listeners.withLock { $0.append(listener) }
    }
}

/// `@unchecked Sendable`: `queue` is set once in `init`, before any commit can run.
private final class DepthBox: @unchecked Sendable {
    weak var queue: InMemoryEventQueue?
}

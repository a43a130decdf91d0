import BeaconWire

/// Durable storage of events between `track` and delivery: the seam between the tracker,
/// the batcher and the store. Beacon ships ``SQLiteEventQueue`` and ``InMemoryEventQueue``.
///
/// `append` never waits on a commit: implementations group-commit in the background and
/// report through their listeners. The batcher reads from the head with `peek` and
/// settles each batch with `settle`, in one transaction.
public protocol EventQueue: AnyObject, Sendable {
    /// Where the queue lives, for the dashboard (`/var/lib/app/beacon.sqlite`, `in memory`).
    var location: String { get }

    /// Accepts an encoded event. Returns at once with a ticket to wait on, except when the
    /// memory buffer is full while the store is healthy (then it waits for one commit).
    func append(_ event: PendingEvent) -> CommitTicket

    /// Returns when the event holding this ticket is committed; throws if it was dropped.
    func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError)

    /// Returns when everything appended before this call is committed or dropped.
    func waitForPendingWrites() async

    /// Reads events from the head, oldest first: at most `limit` events and `maxBytes`
    /// of payload (but always at least one event when any is queued). The events stay
    /// queued, but are leased: the overflow policy will not drop them until settled.
    func peek(limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent]

    /// Settles a finished batch in one transaction: removes delivered events, moves
    /// dead letters out of the queue, and appends the record to the batch history.
    func settle(_ settlement: BatchSettlement) async throws(StorageError)

    /// Current counts (cheap; no I/O).
    var depth: QueueDepth { get }

    /// A new batch id, greater than any in the store's history.
    func makeBatchID() -> Int64

    /// Dead letters, newest first.
    func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter]

    /// Subscribes to commits, drops and storage faults. Called on the queue's own
    /// thread: keep the handler short and non-blocking.
    func addListener(_ listener: @escaping @Sendable (QueueEvent) -> Void)
}

/// An event validated and encoded by `track`, waiting for its commit.
public struct PendingEvent: Sendable, Hashable {
    public var messageId: String
    public var name: String
    /// The event's JSON, as it will go on the wire.
    public var payload: [UInt8]
    /// When it was tracked.
    public var createdAt: Timestamp

    public init(messageId: String, name: String, payload: [UInt8], createdAt: Timestamp) {
        self.messageId = messageId
        self.name = name
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// A place in the order of appends; awaited to know an event is committed.
public struct CommitTicket: Sendable, Hashable, Comparable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: CommitTicket, rhs: CommitTicket) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How full the queue is.
public struct QueueDepth: Sendable, Hashable {
    /// Events committed and not yet delivered or dead-lettered.
    public var events: Int
    /// Bytes of their JSON.
    public var bytes: Int
    /// Events accepted and held in memory, not yet committed.
    public var buffered: Int
    /// Lifetime totals as the store keeps them.
    public var totals: QueueTotals

    public init(events: Int = 0, bytes: Int = 0, buffered: Int = 0, totals: QueueTotals = QueueTotals()) {
        self.events = events
        self.bytes = bytes
        self.buffered = buffered
        self.totals = totals
    }
}

/// Lifetime counters of a queue. They add up: `committed == delivered + deadLettered +
/// droppedFromStore + depth`, and every event `track` accepted was either committed,
/// dropped from memory, or is still buffered.
public struct QueueTotals: Sendable, Hashable {
    /// Events ever accepted by `append`.
    public var accepted: Int = 0
    /// Events ever committed to the store.
    public var committed: Int = 0
    /// Events delivered and removed.
    public var delivered: Int = 0
    /// Events moved to the dead-letter table.
    public var deadLettered: Int = 0
    /// Events dropped by the overflow policy (from the store or from memory).
    public var dropped: Int = 0

    public init(accepted: Int = 0, committed: Int = 0, delivered: Int = 0, deadLettered: Int = 0, dropped: Int = 0) {
        self.accepted = accepted
        self.committed = committed
        self.delivered = delivered
        self.deadLettered = deadLettered
        self.dropped = dropped
    }
}

/// What a finished send does to the queue, applied in one transaction.
public struct BatchSettlement: Sendable, Hashable {
    /// The history record of the send.
    public var record: BatchRecord
    /// Events delivered: removed from the queue.
    public var delivered: [Int64]
    /// Events refused for good: moved to the dead-letter table.
    public var deadLetters: [DeadLetter]
    /// The rest of the lease is released (they stay queued).

    public init(record: BatchRecord, delivered: [Int64] = [], deadLetters: [DeadLetter] = []) {
        self.record = record
        self.delivered = delivered
        self.deadLetters = deadLetters
    }
}

/// An event that will never be delivered, kept with the reason.
public struct DeadLetter: Sendable, Hashable {
    public var event: QueuedEvent
    /// Why, as the destination said it.
    public var reason: String
    /// Which destination refused it.
    public var destination: String
    /// The HTTP status, if any.
    public var status: Int?
    /// When it was dead-lettered.
    public var failedAt: Timestamp

    public init(event: QueuedEvent, reason: String, destination: String, status: Int?, failedAt: Timestamp) {
        self.event = event
        self.reason = reason
        self.destination = destination
        self.status = status
        self.failedAt = failedAt
    }
}

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
}

/// A store operation that failed.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    public var kind: StorageProblem.Kind
    public var message: String
    public init(kind: StorageProblem.Kind, message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { "storage \(kind.rawValue): \(message)" }
}

import BeaconWire

/// Durable storage of events between `track` and delivery: the seam between the tracker,
/// the batchers and the store. Beacon ships ``SQLiteEventQueue`` and ``InMemoryEventQueue``.
///
/// `append` never waits on a commit: implementations group-commit in the background and
/// report through their listeners.
///
/// **Destinations.** Each destination has its own progress through the queue: its
/// batcher reads with `peek(for:after:limit:maxBytes:)` the oldest events it is not done
/// with, and settles each batch with `settle`, in one transaction. An event leaves the
/// queue once every registered destination is done with it (delivered it, dead-lettered
/// it, or filtered it out). A destination registered later starts with every event
/// queued at that moment.
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

    /// Registers a destination (idempotent): from now on events stay queued until it is
    /// done with them. `peek` and `settle` register unknown destinations themselves.
    func register(destination: String) async throws(StorageError)

    /// Forgets a destination (idempotent): its progress and counters go, and the events
    /// every remaining destination is done with leave the queue. Its dead letters stay.
    /// Use it when a destination is removed for good; events are kept for every
    /// registered destination, running or not.
    func unregister(destination: String) async throws(StorageError)

    /// Reads the oldest events `destination` is not done with, after sequence `after`
    /// when given: at most `limit` events and `maxBytes` of payload (but always at least
    /// one event when any is left). The events stay queued, leased to the destination:
    /// the overflow policy will not drop them until they are settled or released.
    func peek(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent]

    /// Settles a finished batch of `settlement.record.destination` in one transaction:
    /// marks delivered, filtered and dead-lettered events done for it (removing those every
    /// destination is done with), stores the dead letters, appends the record to the
    /// history, and releases the destination's lease through `settlement.through`.
    func settle(_ settlement: BatchSettlement) async throws(StorageError)

    /// Releases every lease of `destination` (a batch read ahead and then not sent).
    func releaseLeases(for destination: String)

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

extension EventQueue {
    /// The head of the queue for the destination named `default`.
    public func peek(limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        try await peek(for: Destination.defaultName, after: nil, limit: limit, maxBytes: maxBytes)
    }
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
    /// Each registered destination's progress, by name.
    public var destinations: [String: DestinationDepth]

    public init(
        events: Int = 0, bytes: Int = 0, buffered: Int = 0, totals: QueueTotals = QueueTotals(),
        destinations: [String: DestinationDepth] = [:]
    ) {
        self.events = events
        self.bytes = bytes
        self.buffered = buffered
        self.totals = totals
        self.destinations = destinations
    }

    /// Events `destination` is not done with (all committed events if it is not registered yet).
    public func pending(for destination: String) -> Int {
        destinations[destination]?.pending ?? events
    }
}

/// One destination's progress through the queue. They add up: every event committed
/// while it was registered is pending, delivered, dead-lettered, filtered or dropped.
public struct DestinationDepth: Sendable, Hashable {
    /// Events queued that it is not done with.
    public var pending: Int
    /// Events it delivered.
    public var delivered: Int
    /// Events it refused for good (in the dead-letter table under its name).
    public var deadLettered: Int
    /// Events its enrichment chain filtered out.
    public var filtered: Int
    /// Events dropped by the overflow policy before it had them.
    public var dropped: Int

    public init(pending: Int = 0, delivered: Int = 0, deadLettered: Int = 0, filtered: Int = 0, dropped: Int = 0) {
        self.pending = pending
        self.delivered = delivered
        self.deadLettered = deadLettered
        self.filtered = filtered
        self.dropped = dropped
    }
}

/// Lifetime counters of a queue. They add up: `committed == delivered + deadLettered +
/// droppedFromStore + depth`, and every event `track` accepted was either committed,
/// dropped from memory, or is still buffered. An event counts once, when it leaves the
/// store: as dead-lettered if any destination dead-lettered it, else as delivered.
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
    /// Events delivered: done for the destination.
    public var delivered: [Int64]
    /// Events refused for good: copied to the dead-letter table, done for the destination.
    public var deadLetters: [DeadLetter]
    /// Events the destination's enrichment chain filtered out: done, never sent.
    public var filtered: [Int64]
    /// The last sequence of the batch: the destination's lease is released through it
    /// (events read ahead past it stay leased). The rest of the batch stays queued.
    public var through: Int64?

    public init(
        record: BatchRecord, delivered: [Int64] = [], deadLetters: [DeadLetter] = [], filtered: [Int64] = [],
        through: Int64? = nil
    ) {
        self.record = record
        self.delivered = delivered
        self.deadLetters = deadLetters
        self.filtered = filtered
        self.through = through
    }

    /// Every sequence this settlement makes done for its destination.
    var done: [Int64] { delivered + filtered + deadLetters.map(\.event.sequence) }
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

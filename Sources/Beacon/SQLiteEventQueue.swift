import BeaconWire
import Foundation
import GRDB
import Logging
import Synchronization

/// A durable queue in one SQLite file (WAL mode), with group commit.
///
/// ```swift
/// let queue = try SQLiteEventQueue(path: "/var/lib/myapp/beacon.sqlite")
/// ```
///
/// Durability: with the default ``Durability/processCrash``, an event whose commit was
/// reported survives `kill -9` of the process; with ``Durability/powerLoss`` (one fsync
/// per transaction, about 5 times slower for single events) it also survives power loss.
///
/// Bounds: at most ``Configuration/maxQueuedEvents`` events and
/// ``Configuration/maxQueuedBytes`` bytes are kept; past that, the oldest events that are
/// not being sent are dropped, counted and reported (`QueueEvent.dropped`).
public final class SQLiteEventQueue: EventQueue {
    /// What a commit survives.
    public enum Durability: Sendable, Hashable {
        /// `synchronous=NORMAL`: survives a crash or kill of the process.
        case processCrash
        /// `synchronous=FULL`: also survives power loss and kernel crashes.
        case powerLoss
    }

    /// Limits and behaviour of the queue.
    public struct Configuration: Sendable {
        /// Events kept at most before the oldest are dropped. Default 1,000,000.
        public var maxQueuedEvents = 1_000_000
        /// Bytes of event JSON kept at most before the oldest are dropped. Default 512 MiB.
        public var maxQueuedBytes = 512 * 1024 * 1024
        /// Events held in memory while waiting for a commit (or for a failing store to
        /// recover). Default 10,000 (about 5 MB).
        public var memoryBufferCapacity = 10_000
        /// Events per transaction at most. Default 1,000.
        public var maxEventsPerTransaction = 1_000
        /// See ``Durability``. Default ``Durability/processCrash``.
        public var durability: Durability = .processCrash
        /// How long a write waits for another process's lock before it counts as a fault.
        /// Default 200 ms.
        public var busyTimeout: Duration = .milliseconds(200)
        /// Batch history rows kept. Default 1,000.
        public var batchHistoryLimit = 1_000

        public init() {}
    }

    public let location: String
    private let pool: DatabasePool
    private let buffer: GroupCommitBuffer
    private let configuration: Configuration
    private let logger: Logger
    private let state: Mutex<State>
    private let listeners = Mutex<[@Sendable (QueueEvent) -> Void]>([])
    /// Numbers write transactions in the order SQLite serializes them (it is taken inside
    /// each transaction), so their counters reach `state` in that order too.
    private let transactionCounter = Mutex<UInt64>(0)

    private struct State {
        var stored: StoreSchema.State
        /// The highest sequence handed out by `peek` and not yet settled (0: none).
        var leasedThrough: Int64 = 0
        var lastBatchID: Int64 = 0
        var droppedFromMemory = 0
        var fileIdentity: FileIdentity?
        /// Order of the last transaction whose counters were copied into `stored`.
        var appliedTransaction: UInt64 = 0
    }

    /// Opens (creating if needed) the store at `path`.
    public init(path: String, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "beacon.queue")) throws(StorageError) {
        self.location = path
        self.configuration = configuration
        self.logger = logger
        var grdb = GRDB.Configuration()
        let (seconds, attoseconds) = configuration.busyTimeout.components
        grdb.busyMode = .timeout(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
        grdb.label = "beacon.queue"
        let pool: DatabasePool
        let stored: StoreSchema.State
        let lastBatchID: Int64
        do {
            pool = try DatabasePool(path: path, configuration: grdb)
            let synchronous = configuration.durability == .powerLoss ? "FULL" : "NORMAL"
            try pool.writeWithoutTransaction { db in
                // DatabasePool sets NORMAL on its writer after prepareDatabase: set it here.
                try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            }
            try StoreSchema.migrator().migrate(pool)
            (stored, lastBatchID) = try pool.read { db in
                (try StoreSchema.State.read(db), try Int64.fetchOne(db, sql: "SELECT max(id) FROM batches") ?? 0)
            }
        } catch {
            throw StorageError(error, path: path)
        }
        self.pool = pool
        self.state = Mutex(State(stored: stored, lastBatchID: lastBatchID, fileIdentity: FileIdentity(path: path)))
        var bufferConfiguration = GroupCommitBuffer.Configuration()
        bufferConfiguration.capacity = configuration.memoryBufferCapacity
        bufferConfiguration.maxGroup = configuration.maxEventsPerTransaction
        let commitBox = CommitBox()
        self.buffer = GroupCommitBuffer(configuration: bufferConfiguration, label: "beacon.queue.writer") { group in
            commitBox.queue?.commit(group)
        }
        commitBox.queue = self
        buffer.onDrop = { [weak self] count in self?.droppedFromMemory(count) }
        buffer.onFailure = { [weak self] error, buffered in self?.storageFailed(error, buffered: buffered) }
        buffer.onRecovery = { [weak self] in self?.storageRecovered() }
    }

    deinit {
        let left = buffer.close()
        if !left.isEmpty {
            logger.error("queue closed with events not yet stored", metadata: ["events": "\(left.count)"])
        }
    }

    // MARK: EventQueue

    public func append(_ event: PendingEvent) -> CommitTicket {
        buffer.append(event)
    }

    public func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError) {
        guard await buffer.waitForCommit(ticket) else { throw .droppedBeforeCommit }
    }

    public func waitForPendingWrites() async {
        await buffer.waitForPendingWrites()
    }

    public var depth: QueueDepth {
        let buffered = buffer.bufferedCount
        let accepted = buffer.acceptedCount
        return state.withLock { state in
            var totals = state.stored.totals
            totals.dropped += state.droppedFromMemory
            totals.accepted = accepted
            return QueueDepth(events: state.stored.depth, bytes: state.stored.bytes, buffered: buffered, totals: totals)
        }
    }

    public func addListener(_ listener: @escaping @Sendable (QueueEvent) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    public func makeBatchID() -> Int64 {
        state.withLock { state in
            state.lastBatchID += 1
            return state.lastBatchID
        }
    }

    public func peek(limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        let events: [QueuedEvent]
        do {
            events = try await pool.read { db in
                var events: [QueuedEvent] = []
                var bytes = 0
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT seq, message_id, name, payload FROM events ORDER BY seq LIMIT ?",
                    arguments: [max(1, limit)])
                while let row = try rows.next() {
                    let payload: Data = row[3]
                    if !events.isEmpty, bytes + payload.count > maxBytes { break }
                    bytes += payload.count
                    events.append(QueuedEvent(sequence: row[0], messageId: row[1], name: row[2], payload: [UInt8](payload)))
                }
                return events
            }
        } catch {
            throw StorageError(error, path: location)
        }
        if let last = events.last {
            state.withLock { $0.leasedThrough = max($0.leasedThrough, last.sequence) }
        }
        return events
    }

    public func settle(_ settlement: BatchSettlement) async throws(StorageError) {
        let historyLimit = Int64(configuration.batchHistoryLimit)
        let stored: StoreSchema.State
        let order: UInt64
        do {
            (stored, order) = try await pool.write { db in
                var stored = try StoreSchema.State.read(db)
                let order = self.nextTransactionOrder()
                for range in SQLiteEventQueue.ranges(of: settlement.delivered) {
                    let row = try Row.fetchOne(
                        db, sql: "SELECT count(*), coalesce(sum(length(payload)), 0) FROM events WHERE seq BETWEEN ? AND ?",
                        arguments: [range.lowerBound, range.upperBound])
                    let (count, bytes): (Int, Int) = (row?[0] ?? 0, row?[1] ?? 0)
                    try db.execute(
                        sql: "DELETE FROM events WHERE seq BETWEEN ? AND ?", arguments: [range.lowerBound, range.upperBound])
                    stored.depth -= count
                    stored.bytes -= bytes
                    stored.delivered += count
                }
                for letter in settlement.deadLetters {
                    try db.execute(sql: "DELETE FROM events WHERE seq = ?", arguments: [letter.event.sequence])
                    guard db.changesCount > 0 else { continue }
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO dead_letters (seq, message_id, name, payload, reason, destination, status, failed_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            letter.event.sequence, letter.event.messageId, letter.event.name, Data(letter.event.payload),
                            letter.reason, letter.destination, letter.status, letter.failedAt.millisecondsSince1970,
                        ])
                    stored.depth -= 1
                    stored.bytes -= letter.event.payload.count
                    stored.deadLettered += 1
                }
                let record = settlement.record
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO batches (id, destination, started_at, duration_us, events, bytes, attempt, status, outcome, error)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        record.id, record.destination, record.startedAt.millisecondsSince1970,
                        record.duration.microseconds, record.events, record.bytes, record.attempt, record.status,
                        record.outcome.rawValue, record.error,
                    ])
                try db.execute(sql: "DELETE FROM batches WHERE id <= ?", arguments: [record.id - historyLimit])
                try stored.write(db, now: Timestamp.now().millisecondsSince1970)
                return (stored, order)
            }
        } catch {
            throw StorageError(error, path: location)
        }
        apply(stored, order: order)
        state.withLock { $0.leasedThrough = 0 }
        notify(.settled(settlement, depth: self.depth))
    }

    public func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter] {
        do {
            return try await pool.read { db in try SQLiteEventQueue.readDeadLetters(db, limit: limit) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    /// Recent batch history, newest first.
    public func recentBatches(limit: Int) async throws(StorageError) -> [BatchRecord] {
        do {
            return try await pool.read { db in try SQLiteEventQueue.readBatches(db, limit: limit) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    /// Runs SQL on the writer connection, between commits. For fault-injection tests
    /// (`PRAGMA query_only = 1`, `PRAGMA max_page_count = N`) and maintenance.
    @_spi(Testing)
    public func executeOnWriter(_ sql: String) async throws {
        try await pool.writeWithoutTransaction { db in try db.execute(sql: sql) }
    }

    // MARK: Writer side (runs on the buffer's queue)

    fileprivate func commit(_ group: [PendingEvent]) -> StorageError? {
        if let problem = checkFileIdentity() { return problem }
        let leasedThrough = state.withLock { $0.leasedThrough }
        let limits = (events: configuration.maxQueuedEvents, bytes: configuration.maxQueuedBytes)
        var dropped = 0
        let stored: StoreSchema.State
        let order: UInt64
        do {
            (stored, order) = try pool.writeWithoutTransaction { db in
                var stored = StoreSchema.State()
                var order: UInt64 = 0
                try db.inTransaction(.immediate) {
                    // Counters come from the store inside the transaction: a settle may have
                    // committed since this group was taken.
                    stored = try StoreSchema.State.read(db)
                    order = self.nextTransactionOrder()
                    let insert = try db.cachedStatement(
                        sql: "INSERT INTO events (seq, message_id, name, payload, created_at) VALUES (?, ?, ?, ?, ?)")
                    for event in group {
                        insert.setUncheckedArguments([
                            stored.nextSeq, event.messageId, event.name, Data(event.payload),
                            event.createdAt.millisecondsSince1970,
                        ])
                        try insert.execute()
                        stored.nextSeq += 1
                        stored.depth += 1
                        stored.bytes += event.payload.count
                    }
                    stored.committed += group.count
                    if stored.depth > limits.events || stored.bytes > limits.bytes {
                        dropped = try SQLiteEventQueue.dropOldest(
                            db, state: &stored, after: leasedThrough, limits: limits)
                    }
                    try stored.write(db, now: Timestamp.now().millisecondsSince1970)
                    return .commit
                }
                return (stored, order)
            }
        } catch {
            return StorageError(error, path: location)
        }
        apply(stored, order: order)
        let depth = self.depth
        notify(.committed(count: group.count, depth: depth))
        if dropped > 0 {
            logger.warning("queue full: dropped oldest events", metadata: ["events": "\(dropped)"])
            notify(.dropped(count: dropped, reason: "queue full (overflow policy: drop oldest)", depth: depth))
        }
        return nil
    }

    /// Called inside a write transaction: SQLite runs them one at a time, so the numbers
    /// follow the order in which their counters were written.
    private func nextTransactionOrder() -> UInt64 {
        transactionCounter.withLock { counter in
            counter += 1
            return counter
        }
    }

    /// Copies a transaction's counters into memory unless a later one already did.
    private func apply(_ stored: StoreSchema.State, order: UInt64) {
        state.withLock { state in
            guard order > state.appliedTransaction else { return }
            state.appliedTransaction = order
            state.stored = stored
        }
    }

    private static func dropOldest(
        _ db: Database, state: inout StoreSchema.State, after leasedThrough: Int64, limits: (events: Int, bytes: Int)
    ) throws -> Int {
        let rows = try Row.fetchCursor(
            db, sql: "SELECT seq, length(payload) FROM events WHERE seq > ? ORDER BY seq", arguments: [leasedThrough])
        var lastSeq: Int64?
        var dropped = 0
        while state.depth > limits.events || state.bytes > limits.bytes, let row = try rows.next() {
            lastSeq = row[0]
            state.depth -= 1
            state.bytes -= row[1] as Int
            dropped += 1
        }
        if let lastSeq {
            try db.execute(sql: "DELETE FROM events WHERE seq > ? AND seq <= ?", arguments: [leasedThrough, lastSeq])
        }
        state.dropped += dropped
        return dropped
    }

    private func droppedFromMemory(_ count: Int) {
        state.withLock { $0.droppedFromMemory += count }
        logger.error("store failing and memory buffer full: dropped oldest buffered events", metadata: ["events": "\(count)"])
        notify(.dropped(count: count, reason: "store failing and memory buffer full", depth: depth))
    }

    private func storageFailed(_ error: StorageError, buffered: Int) {
        logger.error("store write failed; holding events in memory and retrying", metadata: [
            "kind": "\(error.kind.rawValue)", "error": "\(error.message)", "buffered": "\(buffered)",
        ])
        notify(.storageProblem(StorageProblem(kind: error.kind, message: error.message, since: .now(), bufferedEvents: buffered)))
    }

    private func storageRecovered() {
        logger.notice("store writes work again")
        notify(.storageRecovered(depth: depth))
    }

    private func notify(_ event: QueueEvent) {
        for listener in listeners.withLock({ $0 }) { listener(event) }
    }

    /// Notices when the file was removed or replaced underneath the open store: writes
    /// would go to a file nobody can open again. One `stat` per transaction (about a
    /// microsecond).
    private func checkFileIdentity() -> StorageError? {
        let expected = state.withLock { $0.fileIdentity }
        guard let expected, FileIdentity(path: location) != expected else { return nil }
        return StorageError(
            kind: .fileRemoved,
            message: "\(location) was removed or replaced while open; restore it or restart with a new store")
    }

    // MARK: Helpers shared with the read-only monitor

    static func readDeadLetters(_ db: Database, limit: Int) throws -> [DeadLetter] {
        try Row.fetchAll(
            db,
            sql: "SELECT seq, message_id, name, payload, reason, destination, status, failed_at FROM dead_letters ORDER BY failed_at DESC, seq DESC LIMIT ?",
            arguments: [limit]
        ).map { row in
            let payload: Data = row[3]
            return DeadLetter(
                event: QueuedEvent(sequence: row[0], messageId: row[1], name: row[2], payload: [UInt8](payload)),
                reason: row[4], destination: row[5], status: row[6],
                failedAt: Timestamp(millisecondsSince1970: row[7]))
        }
    }

    static func readBatches(_ db: Database, limit: Int) throws -> [BatchRecord] {
        try Row.fetchAll(
            db,
            sql: "SELECT id, destination, started_at, duration_us, events, bytes, attempt, status, outcome, error FROM batches ORDER BY id DESC LIMIT ?",
            arguments: [limit]
        ).map { row in
            BatchRecord(
                id: row[0], destination: row[1], startedAt: Timestamp(millisecondsSince1970: row[2]),
                duration: .microseconds(row[3] as Int64), events: row[4], bytes: row[5], attempt: row[6],
                status: row[7], outcome: BatchOutcome(rawValue: row[8]) ?? .retry, error: row[9])
        }
    }

    /// Contiguous runs of sorted sequence numbers.
    static func ranges(of sequences: [Int64]) -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        for sequence in sequences.sorted() {
            if let last = ranges.last, last.upperBound + 1 == sequence {
                ranges[ranges.count - 1] = last.lowerBound...sequence
            } else if ranges.last?.contains(sequence) != true {
                ranges.append(sequence...sequence)
            }
        }
        return ranges
    }
}

/// Lets the writer closure reach the queue without a retain cycle.
/// `@unchecked Sendable`: `queue` is set once in `init`, before any commit can run.
private final class CommitBox: @unchecked Sendable {
    weak var queue: SQLiteEventQueue?
}

/// Device and inode of a file, to notice it being removed or replaced.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

extension Duration {
    /// Whole microseconds.
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}

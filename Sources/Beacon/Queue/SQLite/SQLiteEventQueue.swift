import BeaconWire
import Foundation
import GRDB
import GRDBSQLite
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
    let pool: DatabasePool
    private let buffer: GroupCommitBuffer
    let configuration: Configuration
    private let logger: Logger
    let state: Mutex<State>
    private let listeners = Mutex<[@Sendable (QueueEvent) -> Void]>([])
    /// Numbers write transactions in the order SQLite serializes them (it is taken inside
    /// each transaction), so their counters reach `state` in that order too.
    private let transactionCounter = Mutex<UInt64>(0)

    struct State {
        var stored: StoreSchema.State
        var destinations: [String: StoreSchema.DestinationState] = [:]
        /// Per destination, the sequences handed out by `peek` and not yet settled.
        var leases: [String: ClosedRange<Int64>] = [:]
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
        grdb.busyMode = .timeout(configuration.busyTimeout.inSeconds)
        grdb.label = "beacon.queue"
        let pool: DatabasePool
        let stored: StoreSchema.State
        let destinations: [String: StoreSchema.DestinationState]
        let lastBatchID: Int64
        do {
            pool = try DatabasePool(path: path, configuration: grdb)
            let synchronous = configuration.durability == .powerLoss ? "FULL" : "NORMAL"
            try pool.writeWithoutTransaction { db in
                // DatabasePool sets NORMAL on its writer after prepareDatabase: set it here.
                try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            }
            try StoreSchema.migrator().migrate(pool)
            (stored, destinations, lastBatchID) = try pool.read { db in
                (
                    try StoreSchema.State.read(db), try StoreSchema.DestinationState.readAll(db),
                    try Int64.fetchOne(db, sql: "SELECT max(id) FROM batches") ?? 0
                )
            }
        } catch {
            throw StorageError(error, path: path)
        }
        self.pool = pool
        self.state = Mutex(State(
            stored: stored, destinations: destinations, lastBatchID: lastBatchID, fileIdentity: FileIdentity(path: path)))
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
            return QueueDepth(
                events: state.stored.depth, bytes: state.stored.bytes, buffered: buffered, totals: totals,
                destinations: state.destinations.mapValues(\.depth))
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

    public func register(destination: String) async throws(StorageError) {
        guard state.withLock({ $0.destinations[destination] == nil }) else { return }
        let result: Snapshot
        do {
            result = try await pool.write { db in
                var snapshot = try Snapshot.read(db, order: self.nextTransactionOrder())
                if snapshot.destinations[destination] == nil {
                    snapshot.destinations[destination] = try Self.insertDestination(destination, depth: snapshot.stored.depth, db)
                    self.logger.info("destination registered", metadata: [
                        "destination": "\(destination)", "pending": "\(snapshot.stored.depth)",
                    ])
                }
                return snapshot
            }
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result)
    }

    public func unregister(destination: String) async throws(StorageError) {
        guard state.withLock({ $0.destinations[destination] != nil }) else { return }
        let result: Snapshot
        do {
            result = try await pool.write { db in
                var snapshot = try Snapshot.read(db, order: self.nextTransactionOrder())
                guard snapshot.destinations.removeValue(forKey: destination) != nil else { return snapshot }
                try db.run("DELETE FROM destinations WHERE name = ?", [destination])
                try db.run("DELETE FROM destination_done WHERE destination = ?", [destination])
                let remaining = Array(snapshot.destinations.values)
                if !remaining.isEmpty {
                    // Every event the remaining destinations are all done with leaves now.
                    let left = try Self.removeDone(
                        through: snapshot.stored.nextSeq - 1, from: 1, others: remaining, stored: &snapshot.stored, db)
                    if left > 0 {
                        try db.run("DELETE FROM destination_done WHERE NOT EXISTS (SELECT 1 FROM events WHERE seq = destination_done.seq)")
                    }
                }
                try snapshot.stored.write(db, now: Timestamp.now().millisecondsSince1970)
                self.logger.notice("destination unregistered", metadata: ["destination": "\(destination)"])
                return snapshot
            }
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result)
        state.withLock { _ = $0.leases.removeValue(forKey: destination) }
    }

    public func peek(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        try await register(destination: destination)
        let cursor = state.withLock { $0.destinations[destination]?.cursor ?? 0 }
        let from = max(cursor, after ?? 0)
        let events: [QueuedEvent]
        do {
            // One SELECT is consistent on its own: no need for the transaction `read` wraps it in.
            events = try await pool.unsafeRead { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT seq, message_id, name, payload FROM events
                    WHERE seq > ? AND NOT EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = events.seq)
                    ORDER BY seq LIMIT ?
                    """)
                try statement.setArguments([from, destination, max(1, limit)])
                return try Self.readEvents(statement, maxBytes: maxBytes, db)
            }
        } catch {
            throw StorageError(error, path: location)
        }
        if let first = events.first, let last = events.last {
            state.withLock { state in
                let lease = state.leases[destination].map { min($0.lowerBound, first.sequence)...max($0.upperBound, last.sequence) }
                state.leases[destination] = lease ?? first.sequence...last.sequence
            }
        }
        return events
    }

    /// Steps `statement` (seq, message_id, name, payload), reading columns straight from
    /// SQLite: a batch of 500 events is read in a fraction of the time GRDB rows take.
    /// Stops before `maxBytes` of payload, but always returns at least one event.
    private static func readEvents(_ statement: Statement, maxBytes: Int, _ db: Database) throws -> [QueuedEvent] {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var events: [QueuedEvent] = []
        var bytes = 0
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage) }
            let size = Int(sqlite3_column_bytes(handle, 3))
            if !events.isEmpty, bytes + size > maxBytes { break }
            bytes += size
            let payload = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                if size > 0, let blob = sqlite3_column_blob(handle, 3) {
                    buffer.baseAddress!.initialize(from: blob.assumingMemoryBound(to: UInt8.self), count: size)
                }
                count = size
            }
            events.append(QueuedEvent(
                sequence: sqlite3_column_int64(handle, 0), messageId: text(handle, 1), name: text(handle, 2), payload: payload))
        }
        return events
    }

    private static func text(_ handle: SQLiteStatement, _ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public func releaseLeases(for destination: String) {
        state.withLock { $0.leases[destination] = nil }
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
        let leases = state.withLock { Array($0.leases.values) }
        let limits = (events: configuration.maxQueuedEvents, bytes: configuration.maxQueuedBytes)
        var dropped = 0
        let result: Snapshot
        do {
            result = try pool.writeWithoutTransaction { db in
                try db.inCachedTransaction {
                    // Counters come from the store inside the transaction: a settle may have
                    // committed since this group was taken.
                    var snapshot = try Snapshot.read(db, order: self.nextTransactionOrder())
                    var stored = snapshot.stored
                    let insert = try EventRowInserter(db)
                    for event in group {
                        try insert.insert(
                            seq: stored.nextSeq, messageId: event.messageId, name: event.name, payload: event.payload,
                            createdAt: event.createdAt.millisecondsSince1970)
                        stored.nextSeq += 1
                        stored.depth += 1
                        stored.bytes += event.payload.count
                    }
                    stored.committed += group.count
                    for name in snapshot.destinations.keys { snapshot.destinations[name]?.pending += group.count }
                    if stored.depth > limits.events || stored.bytes > limits.bytes {
                        dropped = try SQLiteEventQueue.dropOldest(
                            db, state: &stored, destinations: &snapshot.destinations, leases: leases, limits: limits)
                    }
                    try stored.write(db, now: Timestamp.now().millisecondsSince1970)
                    for destination in snapshot.destinations.values { try destination.write(db) }
                    snapshot.stored = stored
                    return snapshot
                }
            }
        } catch {
            return StorageError(error, path: location)
        }
        apply(result)
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
    func nextTransactionOrder() -> UInt64 {
        transactionCounter.withLock { counter in
            counter += 1
            return counter
        }
    }

    /// Copies a transaction's counters into memory unless a later one already did.
    func apply(_ snapshot: Snapshot) {
        state.withLock { state in
            guard snapshot.order > state.appliedTransaction else { return }
            state.appliedTransaction = snapshot.order
            state.stored = snapshot.stored
            state.destinations = snapshot.destinations
        }
    }

    /// Drops the oldest events no destination is sending until the queue is within its
    /// limits, and charges each drop to the destinations that did not have the event yet.
    private static func dropOldest(
        _ db: Database, state: inout StoreSchema.State, destinations: inout [String: StoreSchema.DestinationState],
        leases: [ClosedRange<Int64>], limits: (events: Int, bytes: Int)
    ) throws -> Int {
        let rows = try Row.fetchCursor(db, sql: "SELECT seq, length(payload) FROM events ORDER BY seq")
        var victims: [Int64] = []
        while state.depth > limits.events || state.bytes > limits.bytes, let row = try rows.next() {
            let sequence: Int64 = row[0]
            if leases.contains(where: { $0.contains(sequence) }) { continue }
            victims.append(sequence)
            state.depth -= 1
            state.bytes -= row[1] as Int
        }
        guard let first = victims.first, let last = victims.last else { return 0 }
        for (name, destination) in destinations {
            let done = Set(try Int64.fetchAll(
                db, sql: "SELECT seq FROM destination_done WHERE destination = ? AND seq BETWEEN ? AND ?",
                arguments: [name, first, last]))
            let lost = victims.count { $0 > destination.cursor && !done.contains($0) }
            destinations[name]?.pending -= lost
            destinations[name]?.dropped += lost
        }
        for range in ranges(of: victims) {
            try db.execute(sql: "DELETE FROM events WHERE seq BETWEEN ? AND ?", arguments: [range.lowerBound, range.upperBound])
            try db.execute(
                sql: "DELETE FROM destination_done WHERE seq BETWEEN ? AND ?", arguments: [range.lowerBound, range.upperBound])
        }
        state.dropped += victims.count
        return victims.count
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

    func notify(_ event: QueueEvent) {
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
            sql: "SELECT seq, message_id, name, payload, reason, destination, status, failed_at FROM dead_letters ORDER BY failed_at DESC, seq DESC, destination LIMIT ?",
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

extension Database {
    /// Runs a statement compiled once per connection: for the queue's hot paths.
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}

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
///
/// Faults: when the store fails (disk full, read-only, file removed, locked, damaged),
/// events wait in memory (``Configuration/memoryBufferCapacity`` events,
/// ``Configuration/memoryBufferBytes`` bytes) while the writer
/// retries with backoff; past that the oldest buffered are dropped, counted in memory and
/// added to the store's `dropped` counter by the first commit that works. `append` never
/// waits on a failing store, and at most ``Configuration/maxTrackWait`` on a stuck one.
/// The log gets one line per change of condition and a summary every
/// ``Configuration/logSummaryInterval`` while it lasts. To bound a wait, use
/// ``waitForCommit(_:timeout:)``, ``waitForCommit(_:progressTimeout:)`` or
/// ``waitForPendingWrites(timeout:)``; ``close(timeout:)`` counts what never got stored.
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
        /// recover). Default 10,000. ``memoryBufferBytes`` bounds them too.
        public var memoryBufferCapacity = 10_000
        /// Bytes those events may hold at most (their JSON, ids and names, plus about 128
        /// bytes each), whichever of the two bounds comes first; one event larger than
        /// this alone is still taken. Default 1 MiB: about 2,000 events of 330 bytes of
        /// JSON, two of the writer's groups (one committing while the next fills). Twice
        /// that took no more events per second in `bench enqueue` and held 1.2 MiB more
        /// at its peak.
        public var memoryBufferBytes = 1 << 20
        /// Events per transaction at most. Default 1,000.
        public var maxEventsPerTransaction = 1_000
        /// See ``Durability``. Default ``Durability/processCrash``.
        public var durability: Durability = .processCrash
        /// How long a write waits for another process's lock before it counts as a fault.
        /// Default 200 ms.
        public var busyTimeout: Duration = .milliseconds(200)
        /// Events in the tail segment of the log (see ``LogSegments``) from which the next
        /// group commit starts a new one (a group is never split, so a segment may hold up
        /// to ``maxEventsPerTransaction`` more). A segment is dropped whole once every event
        /// in it has left. Default 16,384.
        public var segmentEvents = 16_384
        /// Bytes of event JSON in the tail segment from which the next group commit starts
        /// a new one. Default 8 MiB.
        public var segmentBytes = 8 << 20
        /// Batch history rows kept (up to 15 more: the oldest go 16 batches at a time).
        /// Default 1,000.
        public var batchHistoryLimit = 1_000
        /// Longest time `append` (and so `track`) waits for room in a full memory buffer
        /// while a commit has not finished (a stuck disk); past it the oldest buffered
        /// event is dropped and counted. On a store reporting errors it never waits.
        /// Default 1 s.
        public var maxTrackWait: Duration = .seconds(1)
        /// While the store keeps failing, how often the log gets a summary line (events
        /// held, events dropped); changes of condition are logged at once. Default 30 s.
        public var logSummaryInterval: Duration = .seconds(30)
        /// Hears every statement the queue's connections run (writer and readers; not the
        /// checkpointer's), as it starts: for `beacon bench`'s statement counts and the
        /// tests that check which tables a path reads. It is given a closure for the SQL,
        /// valid during the call: reading it costs (GRDB trims the text), and a count has
        /// no need of it (in `bench latency` it was a sixteenth of the process's CPU).
        /// `nil` (the default) traces nothing.
        @_spi(Benchmarks) public var statementObserver: (@Sendable (_ sql: () -> String) -> Void)?

        public init() {}
    }

    public let location: String
    let pool: DatabasePool
    private let buffer: GroupCommitBuffer
    /// Copies the write-ahead log into the database off the writer's path.
    private let checkpointer: QueueCheckpointer
    let configuration: Configuration
    let logger: Logger
    /// The one writer: commits, the state every transaction updates, and the listeners.
    let writer: SQLiteQueueWriter
    /// The last write ``admits(events:bytes:)`` refused, while it would still not fit.
    private let refusedWrite = Mutex<RefusedWrite?>(nil)

    private struct RefusedWrite: Sendable {
        var events: Int
        var bytes: Int
    }

    /// What the rate-limited fault log has said and not yet said.
    struct FaultLog {
        /// When the current run of failures started (nil: the store works).
        var failingSince: ContinuousClock.Instant?
        var lastSummary: ContinuousClock.Instant?
        /// Events dropped from memory since the run started.
        var droppedInRun = 0
        var droppedSinceSummary = 0
    }

    struct State {
        var stored: StoreSchema.State
        var destinations: [String: StoreSchema.DestinationState] = [:]
        /// Per destination, the sequences handed out by `peek` and not yet settled.
        var leases: [String: ClosedRange<Int64>] = [:]
        /// Per destination, the payload sizes of the events its peeks read and it has not
        /// settled: a settle counts the bytes that leave without reading them again.
        var leasedSizes: [String: LeasedSizes] = [:]
        var lastBatchID: Int64 = 0
        /// Events dropped from memory not yet added to the store's `dropped` counter.
        var unrecordedDrops = 0
        /// Events dropped from memory since the queue was opened.
        var totalMemoryDrops = 0
        var fileIdentity: FileIdentity?
        /// Order of the last transaction whose counters were copied into `stored`.
        var appliedTransaction: UInt64 = 0
        /// Dead letters in the store, retried and purged.
        var deadLetterCounts = StoreSchema.DeadLetterCounts()
        /// Order of the last transaction whose dead-letter counts were copied.
        var appliedDeadLetterTransaction: UInt64 = 0
        /// Numbers write transactions in the order SQLite serializes them (it is taken
        /// inside each transaction), so their counters reach `stored` in that order too.
        var transactions: UInt64 = 0
        var faultLog = FaultLog()
        /// Events the last commit dropped by the overflow bound, for its report.
        var overflowDrops = 0
    }

    /// Opens (creating if needed) the store at `path`.
    public init(path: String, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "beacon.queue")) throws(StorageError) {
        self.location = path
        self.configuration = configuration
        self.logger = logger
        var grdb = GRDB.Configuration()
        grdb.busyMode = .timeout(configuration.busyTimeout.inSeconds)
        grdb.label = "beacon.queue"
        if let observer = configuration.statementObserver {
            grdb.prepareDatabase { db in
                db.trace(options: .statement) { event in
                    if case .statement(let statement) = event { observer { statement.sql } }
                }
            }
        }
        let pool: DatabasePool
        let checkpointer = QueueCheckpointer(path: path)
        let stored: StoreSchema.State
        let destinations: [String: StoreSchema.DestinationState]
        let lastBatchID: Int64
        let deadLetterCounts: StoreSchema.DeadLetterCounts
        do {
            pool = try StoreSchema.openPool(path: path, configuration: grdb, patience: max(configuration.busyTimeout, .seconds(2)))
            let synchronous = configuration.durability == .powerLoss ? "FULL" : "NORMAL"
            try pool.writeWithoutTransaction { db in
                guard let connection = db.sqliteConnection else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database connection is closed")
                }
                checkpointer.install(on: connection)
                // DatabasePool sets NORMAL on its writer after prepareDatabase: set it here.
                try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
                // The writer appends at the tail and settles near the head: 1 MiB of page
                // cache (SQLite's default is 2 MiB) holds both, and a queue filling its
                // store does not keep a full default cache of pages it will not read again.
                try db.execute(sql: "PRAGMA cache_size = -1024")
                // Debian's and Ubuntu's SQLite is built with SECURE_DELETE on: every page a
                // dropped segment frees would be zeroed, written to the log and copied back
                // by the checkpoint (5 MiB per 16,384 events; a seventh of the engine's CPU
                // in a drain). FAST still clears what it rewrites anyway; the freed pages
                // keep their old bytes until a new segment reuses them.
                try db.execute(sql: "PRAGMA secure_delete = FAST")
            }
            try StoreSchema.migrate(pool, path: path)
            (stored, destinations, lastBatchID, deadLetterCounts) = try pool.read { db in
                (
                    try StoreSchema.State.read(db), try StoreSchema.DestinationState.readAll(db),
                    try Row.fetchOne(db, sql: "SELECT max(id) FROM batches").flatMap { row in
                        try StoredRow(row, table: "batches").optionalInt64(0, "id", in: 0...(1 << 62), meaning: "a batch id in 0...2^62")
                    } ?? 0,
                    try StoreSchema.DeadLetterCounts.read(db)
                )
            }
        } catch {
            throw StorageError(error, path: path)
        }
        self.pool = pool
        self.checkpointer = checkpointer
        self.writer = SQLiteQueueWriter(
            location: path, pool: pool, configuration: configuration, logger: logger, checkpointer: checkpointer,
            state: State(
                stored: stored, destinations: destinations, lastBatchID: lastBatchID, fileIdentity: FileIdentity(path: path),
                deadLetterCounts: deadLetterCounts))
        var bufferConfiguration = GroupCommitBuffer.Configuration()
        bufferConfiguration.capacity = configuration.memoryBufferCapacity
        bufferConfiguration.capacityBytes = configuration.memoryBufferBytes
        bufferConfiguration.maxGroup = configuration.maxEventsPerTransaction
        bufferConfiguration.maxAppendWait = configuration.maxTrackWait
        self.buffer = GroupCommitBuffer(configuration: bufferConfiguration, label: "beacon.queue.writer", writer: writer)
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

    public func appendSuspending(_ event: PendingEvent) async -> CommitTicket {
        await buffer.appendSuspending(event)
    }

    public func appendSuspending(contentsOf events: [PendingEvent]) async -> [CommitTicket] {
        await buffer.appendSuspending(contentsOf: events)
    }

    public func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError) {
        guard await buffer.waitForCommit(ticket) else { throw .droppedBeforeCommit }
    }

    public func waitForPendingWrites() async {
        await buffer.waitForPendingWrites()
    }

    public func waitForCommit(_ ticket: CommitTicket, timeout: Duration) async -> CommitWaitResult {
        await buffer.waitForCommit(ticket, until: .now + timeout)
    }

    public func waitForPendingWrites(timeout: Duration) async -> Bool {
        let last = buffer.lastTicketIssued
        guard last.rawValue > 0 else { return true }
        return await buffer.waitForCommit(last, until: .now + timeout) != .timedOut
    }

    /// Waits for the event holding `ticket` as long as the store makes progress: ends with
    /// `.timedOut` once no commit has succeeded for `progressTimeout` (counted from the
    /// later of the last commit and the start of the wait). For a command that must end
    /// on a store that keeps failing, yet wait for a slow one.
    public func waitForCommit(_ ticket: CommitTicket, progressTimeout: Duration) async -> CommitWaitResult {
        await buffer.waitForCommit(ticket, progressTimeout: progressTimeout)
    }

    /// ``waitForCommit(_:progressTimeout:)`` for everything appended before this call;
    /// `false` if it timed out.
    public func waitForPendingWrites(progressTimeout: Duration) async -> Bool {
        let last = buffer.lastTicketIssued
        guard last.rawValue > 0 else { return true }
        return await buffer.waitForCommit(last, progressTimeout: progressTimeout) != .timedOut
    }

    /// Whether the event holding `ticket` is committed or dropped (nil: not settled yet).
    public func commitState(of ticket: CommitTicket) -> CommitWaitResult? {
        buffer.settledOutcome(of: ticket)
    }

    /// Events dropped from memory (the store failing, the buffer full) since the queue
    /// was opened, recorded in the store's `dropped` counter or not yet.
    public var droppedFromMemory: Int { writer.state.withLock { $0.totalMemoryDrops } }

    /// ``Configuration/maxQueuedEvents`` and ``Configuration/maxQueuedBytes``.
    public var bounds: QueueBounds? {
        QueueBounds(maxEvents: configuration.maxQueuedEvents, maxBytes: configuration.maxQueuedBytes)
    }

    /// Takes `events` events of `bytes` bytes in when they fit the bounds beside what the
    /// queue holds (``QueueBounds/fits(events:bytes:in:)``), or remembers that they did
    /// not: the queue is then full (``isFull``) until they would fit, or until a write
    /// is taken. For a writer refused at the bound rather than pushing the oldest out
    /// (`beacon agent`'s ingest): its refusal and ``isFull`` are one test.
    public func admits(events: Int, bytes: Int) -> Bool {
        guard let bounds else { return true }
        let fits = bounds.fits(events: events, bytes: bytes, in: depth)
        refusedWrite.withLock { $0 = fits ? nil : RefusedWrite(events: events, bytes: bytes) }
        return fits
    }

    /// At a bound, or without room for the last write ``admits(events:bytes:)`` refused.
    public var isFull: Bool {
        guard let bounds else { return false }
        let depth = self.depth
        if bounds.isFull(depth) { return true }
        return refusedWrite.withLock { refused in
            guard let write = refused else { return false }
            if bounds.fits(events: write.events, bytes: write.bytes, in: depth) {
                refused = nil  // room came: the refusal is over
                return false
            }
            return true
        }
    }

    /// The store's current failure (nil when the last commit worked or none was tried).
    public var currentFailure: StorageError? { buffer.health.failure }

    /// What ``close(timeout:)`` did.
    public struct CloseReport: Sendable, Hashable {
        /// Events still in memory, never stored: dropped and counted by the close.
        public var discarded: Int
        /// Every event dropped from memory during the queue's life, `discarded` included.
        public var droppedFromMemory: Int
        /// Whether those drops are in the store's `dropped` counter (false: the store
        /// could not be written in time; they are only in this report).
        public var recorded: Bool
        /// Why they could not be recorded, when they could not.
        public var recordError: StorageError?
    }

    /// Stops the queue: events still waiting in memory are dropped and counted, and the
    /// drops not yet in the store's `dropped` counter are written to it in one small
    /// transaction if that finishes within `timeout` (it often does on a full disk: the
    /// failed group's space is reused). Waiters are told their events were not stored;
    /// later appends are dropped. Call it before exiting when a store kept failing.
    public func close(timeout: Duration = .seconds(1)) async -> CloseReport {
        let left = buffer.close()
        checkpointer.close()
        let (unrecorded, total) = writer.state.withLock { state -> (Int, Int) in
            state.unrecordedDrops += left.count
            state.totalMemoryDrops += left.count
            return (state.unrecordedDrops, state.totalMemoryDrops)
        }
        var report = CloseReport(discarded: left.count, droppedFromMemory: total, recorded: unrecorded == 0)
        guard unrecorded > 0 else { return report }
        let writer = self.writer
        let path = location
        let deadline = ContinuousClock.now + timeout
        // The thread gets a little longer than the loop, so an answer at the deadline is not lost.
        let failure: StorageError?? = await Self.runBlocking(timeout: timeout + .milliseconds(300)) {
            // A full disk sometimes refuses the first try and takes the next: try until the deadline.
            var attempt = 0
            while true {
                do {
                    // Through the writer, as every write: the drops join its bookkeeping.
                    let book = try writer.transaction { db in
                        var book = try writer.bookkeeping(db, order: writer.nextTransactionOrder())
                        book.stored.dropped += unrecorded
                        try book.stored.write(db, now: Timestamp.now().millisecondsSince1970)
                        return (book, ())
                    }.0
                    writer.apply(book, recordedDrops: unrecorded)
                    return nil
                } catch {
                    attempt += 1
                    let pause = Duration.milliseconds(min(50 * attempt, 200))
                    if ContinuousClock.now + pause >= deadline { return StorageError(error, path: path) }
                    Thread.sleep(forTimeInterval: pause.inSeconds)
                }
            }
        }
        switch failure {
        case .none:
            report.recordError = StorageError(kind: .ioError, message: "\(path): the store did not answer within \(timeout)")
        case .some(.some(let error)):
            report.recordError = error
        case .some(.none):
            break
        }
        if case .some(.none) = failure { report.recorded = true }
        if !left.isEmpty || !report.recorded {
            logger.error("queue closed with events not stored", metadata: [
                "discarded": "\(left.count)", "dropped": "\(total)", "recorded": "\(report.recorded)",
            ])
        }
        return report
    }

    /// Runs blocking work on a thread of its own and waits for it at most `timeout`
    /// (nil: it did not finish in time, and is left to finish on its own).
    private static func runBlocking<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () -> T) async -> T? {
        let once = Mutex<CheckedContinuation<T?, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            once.withLock { $0 = continuation }
            let finish: @Sendable (T?) -> Void = { value in
                once.withLock { $0.take() }?.resume(returning: value)
            }
            Thread.detachNewThread { finish(body()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: timeout.inNanoseconds))) { finish(nil) }
        }
    }

    public var depth: QueueDepth {
        writer.depth(GroupCommitBuffer.Counts(buffered: buffer.bufferedCount, accepted: buffer.acceptedCount))
    }

    public func facts(wake: QueueFacts.Wake) -> QueueFacts {
        writer.facts.subscribe(wake: wake)
    }

    /// Subscriptions to ``facts(wake:)`` now.
    @_spi(Testing) public var factSubscriptions: Int { writer.facts.subscriberCount }

    func notify(_ event: QueueEvent) { writer.notify(event) }

    func apply(_ snapshot: Snapshot, recordedDrops: Int = 0) { writer.apply(snapshot, recordedDrops: recordedDrops) }

    func nextTransactionOrder() -> UInt64 { writer.nextTransactionOrder() }

    public func makeBatchID() -> Int64 {
        writer.state.withLock { state in
            state.lastBatchID += 1
            return state.lastBatchID
        }
    }

    public func register(destination: String) async throws(StorageError) {
        guard writer.state.withLock({ $0.destinations[destination] == nil }) else { return }
        let result: Snapshot
        do {
            result = try await writer.transaction { db in
                var snapshot = try self.writer.bookkeeping(db, order: self.nextTransactionOrder())
                guard snapshot.log.positions[destination] == nil else { return (snapshot, ()) }
                try snapshot.register(destination, db)
                try snapshot.finish(db)
                self.logger.info("destination registered", metadata: [
                    "destination": "\(destination)", "pending": "\(snapshot.stored.depth)",
                ])
                return (snapshot, ())
            }.0
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result)
    }

    public func unregister(destination: String) async throws(StorageError) {
        guard writer.state.withLock({ $0.destinations[destination] != nil }) else { return }
        let result: Snapshot
        do {
            result = try await writer.transaction { db in
                var snapshot = try self.writer.bookkeeping(db, order: self.nextTransactionOrder())
                guard snapshot.destinations.removeValue(forKey: destination) != nil else { return (snapshot, ()) }
                try db.run("DELETE FROM destinations WHERE name = ?", [destination])
                try db.run("DELETE FROM destination_done WHERE destination = ?", [destination])
                try db.run("DELETE FROM destination_pauses WHERE destination = ?", [destination])
                // Every event the remaining destinations are all done with leaves now.
                let left = snapshot.log.unregister(destination, through: snapshot.last)
                try snapshot.recordLeft(left, leased: LeasedSizes(), db)
                try snapshot.finish(db)
                self.logger.notice("destination unregistered", metadata: ["destination": "\(destination)"])
                return (snapshot, ())
            }.0
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result)
        writer.state.withLock { state in
            state.leases[destination] = nil
            state.leasedSizes[destination] = nil
        }
    }

    public func peek(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        try await register(destination: destination)
        let events: [QueuedEvent]
        do {
            events = try await peekRows(for: destination, after: after, limit: limit, maxBytes: maxBytes)
        } catch {
            throw StorageError(error, path: location)
        }
        if let first = events.first, let last = events.last {
            writer.state.withLock { state in
                let lease = state.leases[destination].map { min($0.lowerBound, first.sequence)...max($0.upperBound, last.sequence) }
                state.leases[destination] = lease ?? first.sequence...last.sequence
                state.leasedSizes[destination, default: LeasedSizes()].record(events)
            }
        }
        return events
    }

    /// The rows of a peek. What `destination` has pending, and in which segments, comes
    /// from the bookkeeping the writer keeps: one read of the rows, none of the tables
    /// that say where they are. Without it (before the first write), or when the rows
    /// cannot be read as it says (a segment an overflow dropped since), one read
    /// transaction takes the cursors, the segments and the rows together.
    private func peekRows(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws -> [QueuedEvent] {
        if let book = writer.keptBookkeeping, book.log.positions[destination] != nil {
            var wanted = book.log.pending(for: destination, through: book.last)
            if let after { wanted.removeThrough(after) }
            guard !wanted.isEmpty else { return [] }
            let ranges = wanted
            do {
                // No transaction: a segment's rows never change once written (a segment goes
                // whole, and then the read fails and is made again below), so each
                // segment's one statement reads what the bookkeeping says.
                return try await pool.unsafeRead { db in try book.segments.read(ranges, limit: limit, maxBytes: maxBytes, db) }
            } catch {
                // Deliberate: read again below, everything in one transaction; its error is the one reported.
                logger.debug("peek from the kept bookkeeping failed; reading the tables", metadata: ["error": "\(error)"])
            }
        }
        return try await pool.read { db in
            let stored = try StoreSchema.State.read(db)
            let destinations = try StoreSchema.DestinationState.readAll(db)
            let log = try LogCursors.read(db, destinations: destinations)
            var wanted = log.pending(for: destination, through: stored.nextSeq - 1)
            if let after { wanted.removeThrough(after) }
            guard !wanted.isEmpty else { return [] }
            return try LogSegments.read(db).read(wanted, limit: limit, maxBytes: maxBytes, db)
        }
    }

    public func releaseLeases(for destination: String) {
        writer.state.withLock { state in
            state.leases[destination] = nil
            state.leasedSizes[destination] = nil
        }
    }


    public func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter] {
        do {
            return try await pool.read { db in try DeadLetterRows.newest(db, limit: limit) }
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
        writer.forgetBookkeeping()  // whatever it changed, the next transaction reads the tables
    }

    /// Occupies the writer connection until the returned closure is called: the write
    /// transactions asked for meanwhile wait behind it, in the order asked (a store busy
    /// with a long group commit). For tests.
    @_spi(Testing)
    public func holdWriter() async -> @Sendable () -> Void {
        let held = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            pool.asyncWriteWithoutTransaction { _ in
                started.resume()
                held.wait()
            }
        }
        return { held.signal() }
    }

    /// Whether the bookkeeping the writer keeps in memory is the store's, table for table
    /// (`nil` before the first write transaction kept one). Runs on the writer
    /// connection, between transactions. For tests (no other process may write meanwhile).
    @_spi(Testing)
    public func keptBookkeepingMatchesStore() async throws -> Bool? {
        try await pool.writeWithoutTransaction { db in
            guard let kept = self.writer.keptBookkeeping else { return nil }
            return try Snapshot.read(db, order: 0).sameBookkeeping(as: kept)
        }
    }

    /// How many write transactions took the bookkeeping from memory, and how many read
    /// its tables (at open, and after another connection wrote). For tests.
    @_spi(Testing)
    public var bookkeepingReads: (fromMemory: Int, fromStore: Int) {
        let reads = writer.book.withLock { $0.reads }
        return (reads.fromMemory, reads.fromStore)
    }

    /// Returns once the background checkpoints asked for so far have run. For tests.
    @_spi(Testing)
    public func backgroundCheckpointsFinished() async {
        await checkpointer.finished()
    }

    /// The writer connection's `PRAGMA synchronous` (1 NORMAL, 2 FULL), what
    /// ``Configuration/durability`` set. For tests.
    @_spi(Testing)
    public func writerSynchronous() async throws -> Int? {
        try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
    }

    // MARK: Helpers shared with the read-only monitor

    static func readBatches(_ db: Database, limit: Int) throws -> [BatchRecord] {
        try Row.fetchAll(
            db,
            sql: "SELECT id, destination, started_at, duration_us, events, bytes, attempt, status, outcome, error FROM batches ORDER BY id DESC LIMIT ?",
            arguments: [limit]
        ).map { fetched in
            let row = StoredRow(fetched, table: "batches")
            return BatchRecord(
                id: try row.int64(0, "id"), destination: try row.string(1, "destination"),
                startedAt: Timestamp(millisecondsSince1970: try row.timestamp(2, "started_at")),
                duration: .microseconds(try row.int64(3, "duration_us")), events: try row.int(4, "events"),
                bytes: try row.int(5, "bytes"), attempt: try row.int(6, "attempt"), status: try row.optionalInt(7, "status"),
                outcome: BatchOutcome(rawValue: try row.string(8, "outcome")) ?? .retry, error: try row.optionalString(9, "error"))
        }
    }
}

extension Database {
    /// Runs a statement compiled once per connection: for the queue's hot paths.
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}

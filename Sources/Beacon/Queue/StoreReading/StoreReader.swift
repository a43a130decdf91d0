import BeaconWire
import Foundation
import GRDB
import Synchronization

/// Reads a Beacon store without writing to it: for `beacon status` and for
/// `beacon monitor`, which watches another process's queue (WAL readers never block the
/// writer). Polling is cheap: the counters live in one row.
public final class StoreReader: Sendable {
    /// The store's path.
    public let path: String
    /// The file opened: its connections and its identity.
    private let opened: Mutex<Opened?>
    /// Whether a file made anew at ``path`` (the store deleted and created again, or moved
    /// aside and replaced) is opened in its turn, at the next read.
    public let reopensReplacedFile: Bool

    private struct Opened: Sendable {
        let pool: DatabasePool
        let identity: FileIdentity?
    }

    /// Opens an existing store read-only. Throws if the file is missing or not a store.
    /// With `reopensReplacedFile`, a file made anew at `path` later is read in its turn.
    public init(path: String, reopensReplacedFile: Bool = false) throws(StorageError) {
        self.path = path
        self.reopensReplacedFile = reopensReplacedFile
        opened = Mutex(try Self.open(path, patience: Self.creationPatience))
    }

    /// A reader for a store that may not be readable yet (or ever): opened at the first
    /// read, tried again at each read while it fails, and opened again when the file at
    /// `path` is replaced. Each read throws what stands in the way, for a fleet's row.
    public init(watching path: String) {
        self.path = path
        self.reopensReplacedFile = true
        opened = Mutex(nil)
    }

    /// The identity of the file read, once opened.
    public var identity: FileIdentity? { opened.withLock { $0?.identity } }

    private static func open(_ path: String, patience: Duration) throws(StorageError) -> Opened {
        if let tooLong = StorePathLength.problem(path) { throw StorageError(kind: .ioError, message: "\(path): \(tooLong)") }
        if let link = SymbolicLinkProblem.of(path) { throw StorageError(kind: .ioError, message: link) }
        guard let identity = FileIdentity(path: path) else {
            throw StorageError(kind: .ioError, message: "\(path) does not exist; check the path or run 'beacon track --db \(path)' first")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "beacon.reader"
        // A store being created is locked for a moment while its creator switches it to
        // WAL and migrates it: wait for that, as for the creation itself.
        configuration.busyMode = .timeout(max(0.05, patience.inSeconds))
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Self.waitForCreation(pool, path: path, patience: patience)
            try pool.read { db in try StoreSchema.refuseNewerSchema(db, migrator: StoreSchema.migrator(), path: path) }
            return Opened(pool: pool, identity: identity)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(error, path: path)
        }
    }

    /// The connections to read with: the file opened, or opened now (again, when the file
    /// at the path was replaced and this reader follows it).
    private func pool() throws(StorageError) -> DatabasePool {
        let current = opened.withLock { $0 }
        if let current, !reopensReplacedFile || current.identity == FileIdentity(path: path) { return current.pool }
        opened.withLock { $0 = nil }  // the old file's figures are no longer the store's
        let fresh = try Self.open(path, patience: .zero)
        opened.withLock { $0 = fresh }
        return fresh.pool
    }

    /// Counts the tables of a file that are neither SQLite's own nor GRDB's record of migrations.
    private static let ownTables =
        "SELECT count(*) FROM sqlite_master WHERE name <> 'grdb_migrations' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"

    /// How long a reader waits for a store another process is creating.
    public static let creationPatience: Duration = .seconds(2)

    /// Throws unless the file is a Beacon store. A file with no table at all (or only
    /// GRDB's record of migrations) is one a process is creating now (`beacon track` on a
    /// new path, read in the instant between the file's creation and its first
    /// migration): waited for, up to ``creationPatience``, and then called what it is
    /// rather than "not a Beacon store".
    private static func waitForCreation(_ pool: DatabasePool, path: String, patience: Duration) throws {
        let deadline = ContinuousClock.now + patience
        while true {
            let (isStore, isEmpty) = try pool.read { db in
                (
                    try db.tableExists("queue_state"),
                    // GRDB records migrations in a table it creates before the first one commits.
                    try Int.fetchOne(db, sql: Self.ownTables) == 0
                )
            }
            if isStore { return }
            guard isEmpty else { throw StorageError(kind: .other, message: "\(path) is an SQLite file but not a Beacon store") }
            guard ContinuousClock.now < deadline else {
                throw StorageError(
                    kind: .other,
                    message: "\(path) is an empty SQLite file, not yet a Beacon store: if a process is creating it, try again")
            }
            usleep(20_000)
        }
    }

    /// What the store holds now.
    public func status(batchLimit: Int = 20, deadLetterLimit: Int = 20) async throws(StorageError) -> StoreStatus {
        do {
            return try await pool().read { db in
                let state = try StoreSchema.State.read(db)
                let dead = try StoreSchema.DeadLetterCounts.read(db)
                var totals = state.totals
                totals.deadLettersRetried = dead.retried
                totals.deadLettersPurged = dead.purged
                // A store last opened by an older Beacon has no destinations table yet.
                let destinations = try db.tableExists("destinations") ? StoreSchema.DestinationState.readAll(db) : [:]
                let (oldest, oldestPending) = try db.tableExists("segments")
                    ? try Self.ages(db, state: state, destinations: destinations)
                    : try Self.agesBeforeSegments(db, destinations: destinations)
                var lastSuccess: [String: Timestamp] = [:]
                for fetched in try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT destination, max(started_at) FROM batches WHERE outcome = 'sent' GROUP BY destination"))
                {
                    let row = StoredRow(fetched, table: "batches")
                    lastSuccess[try row.string(0, "destination")] = Timestamp(millisecondsSince1970: try row.timestamp(1, "started_at"))
                }
                return StoreStatus(
                    path: self.path, depth: state.depth, bytes: state.bytes, deadLetterCount: dead.rows,
                    totals: totals, oldestEvent: oldest,
                    recentBatches: try SQLiteEventQueue.readBatches(db, limit: batchLimit),
                    recentDeadLetters: try DeadLetterRows.newest(db, limit: deadLetterLimit),
                    destinations: destinations.mapValues(\.depth), oldestPending: oldestPending, lastSuccess: lastSuccess,
                    pausedDestinations: try SQLiteEventQueue.readPausedDestinations(db))
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(error, path: path)
        }
    }
}

extension StoreReader {
    /// The oldest queued event's time, and each destination's oldest pending, in a
    /// segmented store.
    private static func ages(
        _ db: Database, state: StoreSchema.State, destinations: [String: StoreSchema.DestinationState]
    ) throws -> (Timestamp?, [String: Timestamp]) {
        let log = try LogCursors.read(db, destinations: destinations)
        let head = log.queued(through: state.nextSeq - 1).ranges.first?.lowerBound
        let oldest = try head.flatMap { try LogSegments.read(db).createdAt(of: $0, db) }
        return (oldest.map(Timestamp.init(millisecondsSince1970:)), try SQLiteEventQueue.oldestPending(db))
    }

    /// The same in a store from before `v7-segmented-log`, which a reader does not migrate.
    private static func agesBeforeSegments(
        _ db: Database, destinations: [String: StoreSchema.DestinationState]
    ) throws -> (Timestamp?, [String: Timestamp]) {
        let oldest = try Row.fetchOne(db, sql: "SELECT created_at FROM events ORDER BY seq LIMIT 1").map { row in
            try StoredRow(row, table: "events").timestamp(0, "created_at")
        }
        var oldestPending: [String: Timestamp] = [:]
        for destination in destinations.values where destination.pending > 0 {
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT created_at FROM events
                    WHERE seq > ? AND NOT EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = events.seq)
                    ORDER BY seq LIMIT 1
                    """,
                arguments: [destination.cursor, destination.name])
            if let row {
                oldestPending[destination.name] = Timestamp(
                    millisecondsSince1970: try StoredRow(row, table: "events").timestamp(0, "created_at"))
            }
        }
        return (oldest.map(Timestamp.init(millisecondsSince1970:)), oldestPending)
    }
}

/// Dead letters read without writing: `beacon dead list|show|export` on a store no engine
/// serves leaves it exactly as it was, whatever Beacon version wrote it.
extension StoreReader: DeadLetterReading {
    public func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter] {
        try await read { db in try DeadLetterRows.newest(db, limit: limit) }
    }

    public func deadLetters(afterID: Int64, limit: Int) async throws(StorageError) -> [DeadLetter] {
        try await read { db in try DeadLetterRows.after(db, afterID: afterID, limit: limit) }
    }

    public func deadLetter(id: Int64) async throws(StorageError) -> DeadLetter? {
        try await read { db in try DeadLetterRows.one(db, id: id) }
    }

    public func deadLetters(matching query: DeadLetterQuery, limit: Int) async throws(StorageError) -> DeadLetterPage {
        try await read { db in try DeadLetterRows.page(db, matching: query, limit: limit) }
    }

    public func deadLetterCount() async throws(StorageError) -> Int {
        try await read { db in try StoreSchema.DeadLetterCounts.read(db).rows }
    }

    private func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(StorageError) -> T {
        do {
            return try await pool().read(body)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(error, path: path)
        }
    }
}

extension StoreReader: PendingEventReading {
    /// The oldest and newest events still pending, for `beacon events` and the console's
    /// pending view. Read in one WAL read transaction: the engine's writer never waits.
    public func pendingEvents(_ query: PendingEventQuery) async throws(StorageError) -> PendingEventsPage {
        do {
            return try await pool().read { db in try PendingEventRows.page(db, query: query) }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(error, path: path)
        }
    }
}

extension StoreReader: OperatorActionReading {
    /// The newest `limit` commands operators gave the store's engines, newest first
    /// (none in a store from before they were kept).
    public func operatorActions(limit: Int) async throws(StorageError) -> [OperatorAction] {
        do {
            return try await pool().read { db in try OperatorActionRows.newest(db, limit: limit) }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(error, path: path)
        }
    }
}

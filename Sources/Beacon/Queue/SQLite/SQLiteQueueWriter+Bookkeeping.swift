import GRDB
import GRDBSQLite
import Synchronization

/// The bookkeeping in memory: segments, cursors, what left out of order, each
/// destination's counters and the store's, as this process's last write transaction left
/// them in the store. Every write transaction starts from it instead of reading the tables
/// again; it reads them only when another connection has written since (a `beacon track`
/// beside the engine, a sync import), which the writer connection's pager tells without a
/// statement (``fileDataVersion(_:)``).
///
/// All write transactions run one at a time on the pool's writer connection, and each
/// keeps what it leaves before the next begins (``transaction(_:)``), so the kept
/// bookkeeping is always the store's as of the last commit.
extension SQLiteQueueWriter {
    /// How often write transactions took the bookkeeping from memory and from the tables.
    struct BookkeepingReads: Sendable, Hashable {
        var fromMemory = 0
        var fromStore = 0
    }

    /// Inside a write transaction: the store's bookkeeping, from memory when no other
    /// connection committed since this process's last transaction, else read.
    func bookkeeping(_ db: Database, order: UInt64) throws -> SQLiteEventQueue.Snapshot {
        let version = Self.fileDataVersion(db)
        let kept = book.withLock { book -> SQLiteEventQueue.Snapshot? in
            guard let snapshot = book.snapshot, let version, snapshot.dataVersion == version else {
                book.reads.fromStore += 1
                return nil
            }
            book.reads.fromMemory += 1
            return snapshot
        }
        if let kept { return SQLiteEventQueue.Snapshot(continuing: kept, order: order) }
        var snapshot = try SQLiteEventQueue.Snapshot.read(db, order: order)
        snapshot.dataVersion = version
        return snapshot
    }

    /// The data version of the writer connection's pager (`SQLITE_FCNTL_DATA_VERSION`): it
    /// changes with every commit to the file, this connection's and any other's, and is
    /// brought up to date when a transaction begins. Read after each commit and again
    /// after the next `BEGIN`, it says whether anyone else wrote in between, as
    /// `PRAGMA data_version` does, but without running a statement (one of about eight per
    /// delivered batch). `nil` when the connection is closed or SQLite refuses.
    static func fileDataVersion(_ db: Database) -> Int64? {
        guard let connection = db.sqliteConnection else { return nil }
        var version: UInt32 = 0
        guard sqlite3_file_control(connection, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return Int64(version)
    }

    /// Runs `body` in one immediate transaction on the writer connection and, once it
    /// committed, keeps the bookkeeping it returns (with the data version its commit
    /// left), before any other transaction can begin. A transaction that fails forgets
    /// it: the next one reads the tables.
    func transaction<T>(_ body: (Database) throws -> (SQLiteEventQueue.Snapshot, T)) throws -> (SQLiteEventQueue.Snapshot, T) {
        try pool.writeWithoutTransaction { db in try committing(db, body) }
    }

    /// ``transaction(_:)`` from async code: the caller waits without holding a thread.
    ///
    /// Not cancelled with the caller's task, on purpose. GRDB's async write interrupts
    /// the statement of a cancelled task; a settle so interrupted would leave a batch the
    /// collector took queued, to be sent again. A transaction once asked for runs to its
    /// end, in the order asked, so a batcher's settles can run inside its `run()`, which
    /// a hard stop cancels.
    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> (SQLiteEventQueue.Snapshot, T)
    ) async throws -> (SQLiteEventQueue.Snapshot, T) {
        try await withCheckedThrowingContinuation { continuation in
            pool.asyncWriteWithoutTransaction { db in
                continuation.resume(with: Result { try self.committing(db, body) })
            }
        }
    }

    /// A transaction of tables outside the bookkeeping (a pause, sync records): `body`
    /// writes them, and the bookkeeping it found stays kept, so the next transaction
    /// need not read the tables again. How code beside the queue writes its store: through
    /// the one writer, in its order.
    func transactionBesideBookkeeping<T>(_ body: (Database) throws -> T) throws -> T {
        try transaction { db in (try self.bookkeeping(db, order: self.nextTransactionOrder()), try body(db)) }.1
    }

    /// ``transactionBesideBookkeeping(_:)`` from async code: the caller waits without
    /// holding a thread.
    func transactionBesideBookkeeping<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await transaction { db in (try self.bookkeeping(db, order: self.nextTransactionOrder()), try body(db)) }.1
    }

    /// One transaction of ``transaction(_:)``, on the writer connection.
    private func committing<T>(
        _ db: Database, _ body: (Database) throws -> (SQLiteEventQueue.Snapshot, T)
    ) throws -> (SQLiteEventQueue.Snapshot, T) {
        do {
            var result = try db.inCachedTransaction { try body(db) }
            // The commit changed the version: what the next transaction compares with.
            if result.0.dataVersion != nil { result.0.dataVersion = Self.fileDataVersion(db) }
            keep(result.0)
            return result
        } catch {
            forgetBookkeeping()
            throw error
        }
    }

    /// What a committed transaction left becomes the kept bookkeeping (when it knows the
    /// `data_version` it started from).
    func keep(_ snapshot: SQLiteEventQueue.Snapshot) {
        book.withLock { $0.snapshot = snapshot.dataVersion == nil ? nil : snapshot }
    }

    /// The next transaction reads the tables (after SQL run outside the bookkeeping, or
    /// a failed transaction).
    func forgetBookkeeping() {
        book.withLock { $0.snapshot = nil }
    }

    /// The kept bookkeeping, for reads that need not see another process's writes at once
    /// (`peek`, the oldest pending events): `nil` until a write transaction kept one.
    var keptBookkeeping: SQLiteEventQueue.Snapshot? {
        book.withLock { $0.snapshot }
    }
}

/// What ``SQLiteQueueWriter`` keeps of the bookkeeping, under its own lock (taken only
/// inside write transactions and by readers copying it).
struct KeptBookkeeping: Sendable {
    var snapshot: SQLiteEventQueue.Snapshot?
    var reads = SQLiteQueueWriter.BookkeepingReads()
}

@_spi(Benchmarks) import Beacon
import BeaconWire
import GRDB

/// `beacon bench agent`'s baseline: the rows the agent's queue keeps for a workload (each
/// event's own JSON, byte for byte, under its `messageId` and name) inserted straight into
/// a fresh Beacon store, in this process: no HTTP, no parsing, no engine.
///
/// It is the bare insert the queue's group commit runs (``EventRowInserter``'s multi-row
/// statements, the store's own schema), in transactions of the queue's largest group
/// (``SQLiteEventQueue/Configuration/maxEventsPerTransaction``, 1,000 rows), in WAL mode
/// with the agent's `synchronous` (NORMAL, or FULL for `--durability power-loss`). The
/// judged run (``LogCopy/untimed``) turns SQLite's automatic checkpoint off while it is
/// timed and copies the log afterwards, untimed: the fastest the same rows reach the same
/// disk with the same durability, so the ratio flatters nothing. The log then grows to
/// the whole run (about 100 MB for 100,000 events), which no store that runs for long may
/// do; ``LogCopy/automatic`` keeps SQLite's default automatic checkpoint (every 1,000
/// log pages, the bound at which the agent's background copy starts), and is reported
/// beside it.
struct QueueInsertBaseline: Sendable {
    /// When the rows' log is copied into the database file.
    enum LogCopy: Sendable {
        /// After the timed inserts (the judged baseline).
        case untimed
        /// As SQLite does by default: by the inserting connection every 1,000 log pages, timed.
        case automatic
    }

    /// The rows in the order the clients' batches hold them, cut into transactions.
    let transactions: [[PendingEvent]]
    /// Rows in all transactions.
    let rowCount: Int
    /// Rows per transaction at most.
    let rowsPerTransaction: Int

    init(workload: IngestWorkload, rowsPerTransaction: Int = SQLiteEventQueue.Configuration().maxEventsPerTransaction) {
        let now = Timestamp.now()
        let rows = workload.batches.flatMap { batch in
            batch.events.map { PendingEvent(messageId: $0.messageId, name: $0.name, payload: $0.payload, createdAt: now) }
        }
        transactions = IngestWorkload.batchRanges(events: rows.count, batchSize: rowsPerTransaction).map { Array(rows[$0]) }
        rowCount = rows.count
        self.rowsPerTransaction = rowsPerTransaction
    }

    /// Inserts every row into a fresh store at `path`; returns the time from the first
    /// insert to the last commit.
    ///
    /// - Throws: when the file cannot be made a store, or holds other than ``rowCount`` rows afterwards.
    func insert(path: String, durability: SQLiteEventQueue.Durability, logCopy: LogCopy = .untimed) throws -> Duration {
        let pool = try DatabasePool(path: path)
        try StoreSchema.migrator().migrate(pool)
        try pool.writeWithoutTransaction { db in
            // DatabasePool sets NORMAL on its writer after opening: set the agent's here.
            try db.execute(sql: "PRAGMA synchronous = \(durability == .powerLoss ? "FULL" : "NORMAL")")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(logCopy == .untimed ? 0 : 1_000)")
        }
        StoreRest.flushFilesystem()
        let start = ContinuousClock.now
        try pool.writeWithoutTransaction { db in
            var firstSeq: Int64 = 1
            for rows in transactions {
                try db.inTransaction {
                    try EventRowInserter(db, table: EventRowInserter.firstSegment).insert(rows, firstSeq: firstSeq)
                    return .commit
                }
                firstSeq += Int64(rows.count)
            }
        }
        let elapsed = start.duration(to: .now)
        let stored = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? 0 }
        try StoreRest.checkpoint(path)  // the copy into the database (what is left of it), untimed
        try pool.close()
        guard stored == rowCount else {
            throw CLIError.runtime("agent benchmark: the baseline stored \(stored) of \(rowCount) rows; its file was not fresh")
        }
        return elapsed
    }
}

import Foundation
import GRDB
import Synchronization

/// The collector's SQLite table of received events, keyed by `messageId`: a batch
/// delivered twice is stored once (`INSERT OR IGNORE`).
final class EventStore: Sendable {
    /// Counts from one insert.
    typealias InsertResult = StoreInsertResult

    let writer: any DatabaseWriter
    /// Checkpoints the write-ahead log of a store on disk (see ``CollectorCheckpointPolicy``).
    private let checkpointer: WALCheckpointer?
    /// Times each step of an insert, for ``CollectorStageProfile``.
    private let timing: StoreTiming?
    /// Why the last insert could not be stored, when the file or its disk refused it (full,
    /// read-only, an I/O error); cleared by the next insert that commits. `/health` reports it.
    let writeProblem = Mutex<String?>(nil)

    /// Opens (creating if needed) the store in `path`, or in memory when `path` is `nil`.
    init(path: String?, checkpoints: CollectorCheckpointPolicy = .default, timing: StoreTiming? = nil) throws {
        var configuration = Configuration()
        configuration.label = "beacon.collector"
        // Opening a new file switches it to WAL while the pool's other connections open
        // theirs: without a wait, a busy moment there failed the open with "database is
        // locked" (seen once in the suite on a loaded machine). Inserts wait as long for
        // another process's lock (two collectors over one file) before answering 503.
        configuration.busyMode = .timeout(2)
        self.timing = timing
        if let path {
            let pool = try DatabasePool(path: path, configuration: configuration)
            let checkpointer = WALCheckpointer(path: path, policy: checkpoints, timing: timing)
            try pool.writeWithoutTransaction { db in
                guard let connection = db.sqliteConnection else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database connection is closed")
                }
                checkpointer.install(on: connection)
            }
            writer = pool
            self.checkpointer = checkpointer
        } else {
            writer = try DatabaseQueue(configuration: configuration)
            checkpointer = nil
        }
        try writer.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS collector_events (
                        message_id TEXT PRIMARY KEY NOT NULL,
                        type TEXT NOT NULL,
                        name TEXT,
                        user_id TEXT,
                        anonymous_id TEXT,
                        timestamp TEXT,
                        received_at INTEGER NOT NULL,
                        json TEXT NOT NULL
                    )
                    """)
            // The file's totals, kept by each batch's transaction so that reading them never
            // scans the events. A file from before this table is counted once, here.
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS collector_totals (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 0),
                        events INTEGER NOT NULL,
                        batches INTEGER NOT NULL
                    )
                    """)
            if try Int.fetchOne(db, sql: "SELECT count(*) FROM collector_totals") == 0 {
                try db.execute(sql: "INSERT INTO collector_totals (id, events, batches) SELECT 0, count(*), 0 FROM collector_events")
            }
        }
    }

    /// Inserts every event of an accepted batch in one transaction; events whose
    /// `messageId` is already stored are counted as duplicates.
    ///
    /// Text columns are bound straight from the request body with cached prepared
    /// statements: no `String` per field and no copy by SQLite (see ``StatementBinder``).
    /// Each statement inserts up to ``rowsPerStatement`` rows, which spares SQLite most of
    /// the cost of running a statement (opening cursors, halting) once per row. The work
    /// runs on GRDB's writer queue, off Swift's cooperative pool.
    ///
    /// The transaction is begun and committed with cached statements: GRDB's `write`
    /// compiles its `BEGIN` and `COMMIT` again each time, about 40 µs of every request.
    ///
    /// With a ``StoreTiming``, the time spent binding and stepping the rows and the time of
    /// the `COMMIT` (which includes a checkpoint when the commit runs one) are recorded.
    func insert(_ batch: AcceptedBatch) async throws -> InsertResult {
        do {
            let result = try await insertInTransaction(batch)
            writeProblem.withLock { $0 = nil }
            return result
        } catch let error as DatabaseError where Self.isStorageCondition(error) {
            // The disk or the file, not the batch: a client should send it again later (503
            // with Retry-After), and `/health` says why until a write succeeds.
            let reason = error.message ?? "\(error.resultCode)"
            writeProblem.withLock { $0 = reason }
            throw StoreUnavailableError(reason: "the collector's store cannot be written: \(reason)", retryAfterSeconds: 2)
        }
    }

    /// Whether `error` says the file or its disk cannot take writes now (full, read-only,
    /// an I/O error, a file that cannot be opened), rather than that the batch failed.
    static func isStorageCondition(_ error: DatabaseError) -> Bool {
        [ResultCode.SQLITE_FULL, .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_CANTOPEN].contains { $0 == error.resultCode.primaryResultCode }
    }

    private func insertInTransaction(_ batch: AcceptedBatch) async throws -> InsertResult {
        try await writer.writeWithoutTransaction { [timing] db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                let start = ContinuousClock.now
                let result = try Self.insertRows(of: batch, db)
                let inserted = ContinuousClock.now
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                timing?.record(insert: inserted - start, commit: .now - inserted)
                return result
            } catch {
                // The first error is the one to report; a failing ROLLBACK means SQLite
                // already ended the transaction.
                if db.isInsideTransaction { try? db.rollback() }
                throw error
            }
        }
    }

    /// Inserts the rows of `batch`, inside the caller's transaction.
    private static func insertRows(of batch: AcceptedBatch, _ db: Database) throws -> InsertResult {
        let parsed = batch.parsed
        return try parsed.withText { text in
            let count = parsed.items.count
            var stored = 0
            var position = 0
            var rows = rowsPerStatement
            while position < count {
                // Statements of 64, 32, ..., 1 rows: a handful of cached statements fit any batch.
                while rows > count - position { rows /= 2 }
                let binder = try StatementBinder(try db.cachedStatement(sql: insertSQL(rows: rows)), in: db)
                defer { binder.finish() }
                for row in 0..<rows {
                    let item = parsed.items[position + row]
                    try bind(item, type: batch.types[position + row], at: Int32(row * 7), with: binder, in: text)
                }
                try binder.bindInt64(batch.receivedAtMilliseconds, at: Int32(rows * 7 + 1))
                stored += try binder.execute()
                position += rows
            }
            if stored > 0 {
                try db.cachedStatement(sql: "UPDATE collector_totals SET events = events + ?, batches = batches + 1 WHERE id = 0")
                    .execute(arguments: [stored])
            }
            return InsertResult(stored: stored, duplicates: count - stored)
        }
    }

    /// Rows inserted by the largest statement (seven parameters each, plus one `received_at` for all).
    static let rowsPerStatement = 64

    /// Binds one event's columns to the parameters after `offset`.
    private static func bind(
        _ item: ParsedItem, type: EventType, at offset: Int32, with binder: StatementBinder, in text: ParsedText
    ) throws {
        /// A string or number field's text, or NULL for any other kind or none.
        func bind(_ field: FieldValue?, at index: Int32) throws {
            guard let field, field.hasText else { return try binder.bindNull(at: offset + index) }
            // Every byte, a NUL included: text is bound with its length, never as a C string,
            // so what is stored (and compared by the PRIMARY KEY) is exactly what was sent.
            try binder.bindText(text.bytes(field), at: offset + index)
        }
        let fields = item.fields
        try bind(fields.messageId, at: 1)
        try binder.bindText(type.name, at: offset + 2)
        try bind(type == .track ? fields.event : fields.name, at: 3)
        try bind(fields.userId, at: 4)
        try bind(fields.anonymousId, at: 5)
        try bind(fields.timestamp?.hasText == true ? fields.timestamp : fields.originalTimestamp, at: 6)
        try binder.bindText(text.bytes(item.range), at: offset + 7)
    }

    /// `INSERT OR IGNORE` of `rows` rows (a power of two up to ``rowsPerStatement``); the
    /// last parameter is the `received_at` shared by every row.
    private static func insertSQL(rows: Int) -> String {
        insertSQLs[rows.trailingZeroBitCount]
    }

    private static let insertSQLs: [String] = (0...rowsPerStatement.trailingZeroBitCount).map { power in
        let rows = 1 << power
        let receivedAt = rows * 7 + 1
        let values = (0..<rows).map { row in
            let first = row * 7 + 1
            return "(?\(first), ?\(first + 1), ?\(first + 2), ?\(first + 3), ?\(first + 4), ?\(first + 5), ?\(receivedAt), ?\(first + 6))"
        }
        return """
            INSERT OR IGNORE INTO collector_events
            (message_id, type, name, user_id, anonymous_id, timestamp, received_at, json)
            VALUES \(values.joined(separator: ", "))
            """
    }

    /// Waits until the checkpoints asked for so far have run.
    func finishCheckpoints() async {
        await checkpointer?.finish()
    }

    /// The number of stored events.
    func count() async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collector_events") ?? 0
        }
    }

    /// The file's totals, from its counter table.
    func totals() async throws -> StoreTotals {
        try await writer.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT events, batches FROM collector_totals WHERE id = 0")
            // Rows read back are checked: a file edited by hand may hold anything.
            // Converted without trapping: text or a huge real in the column gives nil, not a crash.
            guard let row, let events = Int64.fromDatabaseValue(row[0]), let batches = Int64.fromDatabaseValue(row[1]),
                events >= 0, batches >= 0,
                let eventCount = Int(exactly: events), let batchCount = Int(exactly: batches)
            else {
                throw StoreTotalsError(reason: "collector_totals holds no valid row")
            }
            return StoreTotals(store: "sqlite", events: eventCount, batches: batchCount)
        }
    }

    /// Inserts every event of `batches` in one transaction, with the statements
    /// ``insert(_:)`` uses: the collector's own raw insert, which `beacon bench ingest`
    /// compares the HTTP path with. Returns the events stored.
    func insertAll(_ batches: [AcceptedBatch]) async throws -> Int {
        try await writer.write { db in
            var stored = 0
            for batch in batches { stored += try Self.insertRows(of: batch, db).stored }
            return stored
        }
    }

    /// Stored `messageId`s in arrival order.
    func messageIds() async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT message_id FROM collector_events ORDER BY rowid")
        }
    }

    /// Stored `messageId`s in arrival order, as their exact bytes (a `String` read from
    /// SQLite would stop at a NUL).
    func messageIdBytes() async throws -> [[UInt8]] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT CAST(message_id AS BLOB) FROM collector_events ORDER BY rowid").map { row in
                let data: Data = row[0]
                return Array(data)
            }
        }
    }

    /// Stored events in arrival order, at most `limit` of them.
    func events(limit: Int) async throws -> [StoredEvent] {
        try await writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT message_id, type, name, user_id, anonymous_id, timestamp, received_at, json
                    FROM collector_events ORDER BY rowid LIMIT ?
                    """,
                arguments: [limit])
            return rows.map { row in
                StoredEvent(
                    messageId: row[0], type: row[1], name: row[2], userId: row[3], anonymousId: row[4],
                    timestamp: row[5], receivedAtMilliseconds: row[6], json: row[7])
            }
        }
    }
}

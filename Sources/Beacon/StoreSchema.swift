import GRDB

/// The tables of a Beacon store, shared by the engine (read-write) and `beacon monitor`
/// (read-only, from another process).
enum StoreSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-queue") { db in
            // Events in insertion order. `seq` is assigned by the writer (never reused,
            // even after the table empties), so order and identity survive restarts.
            try db.execute(sql: """
                CREATE TABLE events (
                    seq INTEGER PRIMARY KEY,
                    message_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE dead_letters (
                    seq INTEGER PRIMARY KEY,
                    message_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    reason TEXT NOT NULL,
                    destination TEXT NOT NULL,
                    status INTEGER,
                    failed_at INTEGER NOT NULL
                );
                CREATE TABLE batches (
                    id INTEGER PRIMARY KEY,
                    destination TEXT NOT NULL,
                    started_at INTEGER NOT NULL,
                    duration_us INTEGER NOT NULL,
                    events INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    attempt INTEGER NOT NULL,
                    status INTEGER,
                    outcome TEXT NOT NULL,
                    error TEXT
                );
                CREATE TABLE queue_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    next_seq INTEGER NOT NULL,
                    depth INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    committed INTEGER NOT NULL,
                    delivered INTEGER NOT NULL,
                    dead_lettered INTEGER NOT NULL,
                    dropped INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                INSERT INTO queue_state VALUES (1, 1, 0, 0, 0, 0, 0, 0, 0);
                CREATE TABLE meta (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2-sync") { db in
            // One-way sync (see SyncImporter): records of any collection keyed by the
            // server's id, and the links of nested records. The version token lives in
            // `meta` under `sync.version_token`, written in the same transaction.
            try db.execute(sql: """
                CREATE TABLE sync_records (
                    collection TEXT NOT NULL,
                    id TEXT NOT NULL,
                    body BLOB NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (collection, id)
                ) WITHOUT ROWID;
                CREATE TABLE sync_links (
                    collection TEXT NOT NULL,
                    id TEXT NOT NULL,
                    field TEXT NOT NULL,
                    target_collection TEXT NOT NULL,
                    target_id TEXT NOT NULL,
                    PRIMARY KEY (collection, id, field)
                ) WITHOUT ROWID;
                CREATE INDEX sync_links_target ON sync_links (target_collection, target_id);
                """)
        }
        return migrator
    }

    /// The persisted counters.
    struct State: Sendable, Hashable {
        var nextSeq: Int64 = 1
        var depth: Int = 0
        var bytes: Int = 0
        var committed: Int = 0
        var delivered: Int = 0
        var deadLettered: Int = 0
        var dropped: Int = 0

        static func read(_ db: Database) throws -> State {
            guard let row = try Row.fetchOne(
                db,
                sql: "SELECT next_seq, depth, bytes, committed, delivered, dead_lettered, dropped FROM queue_state WHERE id = 1"
            ) else { return State() }
            return State(
                nextSeq: row[0], depth: row[1], bytes: row[2], committed: row[3], delivered: row[4],
                deadLettered: row[5], dropped: row[6])
        }

        func write(_ db: Database, now: Int64) throws {
            let statement = try db.cachedStatement(sql: """
                UPDATE queue_state SET next_seq = ?, depth = ?, bytes = ?, committed = ?, delivered = ?,
                    dead_lettered = ?, dropped = ?, updated_at = ? WHERE id = 1
                """)
            statement.setUncheckedArguments([nextSeq, depth, bytes, committed, delivered, deadLettered, dropped, now])
            try statement.execute()
        }

        var totals: QueueTotals {
            QueueTotals(
                accepted: committed, committed: committed, delivered: delivered, deadLettered: deadLettered,
                dropped: dropped)
        }
    }
}

import GRDB

/// The tables of a Beacon store, shared by the engine (read-write) and `beacon monitor`
/// (read-only, from another process).
@_spi(Benchmarks) public enum StoreSchema {
    /// Integers read back from the store (counters, sequences, ids, sizes) must lie in
    /// this range: arithmetic on them within one transaction cannot overflow.
    static let integerRange: ClosedRange<Int64> = -(1 << 62)...(1 << 62)
    /// Timestamps read back: milliseconds from 1970 to the end of year 9999.
    static let timestampRange: ClosedRange<Int64> = 0...253_402_300_799_999

    public static func migrator() -> DatabaseMigrator {
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
        migrator.registerMigration("v3-destinations") { db in
            // Several destinations over one queue. Each has a cursor (every event with
            // seq <= cursor is done for it: delivered, dead-lettered or filtered out), the
            // events above its cursor that it is already done with, and its counters.
            // An event leaves `events` once every registered destination is done with it.
            // Dead letters are per destination: the same event may be refused by two.
            try db.execute(sql: """
                CREATE TABLE destinations (
                    name TEXT PRIMARY KEY NOT NULL,
                    cursor INTEGER NOT NULL,
                    pending INTEGER NOT NULL,
                    delivered INTEGER NOT NULL,
                    dead_lettered INTEGER NOT NULL,
                    filtered INTEGER NOT NULL,
                    dropped INTEGER NOT NULL,
                    registered_at INTEGER NOT NULL
                );
                CREATE TABLE destination_done (
                    destination TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    PRIMARY KEY (destination, seq)
                ) WITHOUT ROWID;
                CREATE INDEX destination_done_seq ON destination_done (seq);
                CREATE TABLE dead_letters_v3 (
                    seq INTEGER NOT NULL,
                    destination TEXT NOT NULL,
                    message_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    reason TEXT NOT NULL,
                    status INTEGER,
                    failed_at INTEGER NOT NULL,
                    PRIMARY KEY (seq, destination)
                );
                INSERT INTO dead_letters_v3 (seq, destination, message_id, name, payload, reason, status, failed_at)
                    SELECT seq, destination, message_id, name, payload, reason, status, failed_at FROM dead_letters;
                DROP TABLE dead_letters;
                ALTER TABLE dead_letters_v3 RENAME TO dead_letters;
                """)
        }
        migrator.registerMigration("v4-operations") { db in
            // Operators act on dead letters by id: a stable one, never reused (AUTOINCREMENT),
            // so retrying or purging an id twice cannot reach another letter. Retries and
            // purges are counted in their own table (older readers never look at it).
            try db.execute(sql: """
                CREATE TABLE dead_letters_v4 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    seq INTEGER NOT NULL,
                    destination TEXT NOT NULL,
                    message_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    reason TEXT NOT NULL,
                    status INTEGER,
                    failed_at INTEGER NOT NULL,
                    UNIQUE (seq, destination)
                );
                INSERT INTO dead_letters_v4 (seq, destination, message_id, name, payload, reason, status, failed_at)
                    SELECT seq, destination, message_id, name, payload, reason, status, failed_at FROM dead_letters
                    ORDER BY failed_at, seq, destination;
                DROP TABLE dead_letters;
                ALTER TABLE dead_letters_v4 RENAME TO dead_letters;
                CREATE TABLE dead_letter_counters (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    retried INTEGER NOT NULL,
                    purged INTEGER NOT NULL
                );
                INSERT INTO dead_letter_counters VALUES (1, 0, 0);
                """)
        }
        migrator.registerMigration("v5-pauses") { db in
            // The destinations an operator paused and has not resumed: a restarted engine
            // starts them paused. A table of its own, so older readers never see it.
            try db.execute(sql: """
                CREATE TABLE destination_pauses (
                    destination TEXT PRIMARY KEY NOT NULL,
                    paused_at INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v6-dead-letter-attempts") { db in
            // A dead letter keeps its id across retries, with every refusal: a retry
            // remembers the letter's id against its copy's sequence, and a new refusal of
            // that copy brings the letter back under the same id, one attempt more. Tables
            // of their own, so older readers never see them; each letter so far has had one.
            try db.execute(sql: """
                CREATE TABLE dead_letter_attempts (
                    letter_id INTEGER NOT NULL,
                    attempt INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    status INTEGER,
                    failed_at INTEGER NOT NULL,
                    PRIMARY KEY (letter_id, attempt)
                ) WITHOUT ROWID;
                INSERT INTO dead_letter_attempts (letter_id, attempt, reason, status, failed_at)
                    SELECT id, 1, reason, status, failed_at FROM dead_letters;
                CREATE TABLE dead_letter_retries (
                    seq INTEGER NOT NULL,
                    destination TEXT NOT NULL,
                    letter_id INTEGER NOT NULL,
                    PRIMARY KEY (seq, destination)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v7-segmented-log") { db in
            // The log in segments (see LogSegments): the events table becomes the first
            // segment as it is (a rename: no row is copied), later ones are tables of
            // their own, dropped whole once every event in them has left. What left the
            // queue is no longer deleted row by row but recorded: the floor (everything at
            // or below it left), the ranges that left above it (the old table's gaps),
            // and each destination's out-of-order progress as ranges. One transaction, so
            // a kill at any point leaves the store as it was or fully migrated.
            try db.execute(sql: """
                CREATE TABLE segments (
                    first_seq INTEGER PRIMARY KEY,
                    events INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    created_at INTEGER NOT NULL
                );
                ALTER TABLE queue_state ADD COLUMN floor_seq INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE queue_gone (
                    first_seq INTEGER PRIMARY KEY,
                    last_seq INTEGER NOT NULL
                );
                CREATE TABLE destination_done_ranges (
                    destination TEXT NOT NULL,
                    first_seq INTEGER NOT NULL,
                    last_seq INTEGER NOT NULL,
                    PRIMARY KEY (destination, first_seq)
                ) WITHOUT ROWID;
                INSERT INTO destination_done_ranges (destination, first_seq, last_seq)
                    SELECT destination, min(seq), max(seq) FROM (
                        SELECT destination, seq, seq - row_number() OVER (PARTITION BY destination ORDER BY seq) AS run
                        FROM destination_done
                    ) GROUP BY destination, run;
                DROP TABLE destination_done;
                ALTER TABLE destination_done_ranges RENAME TO destination_done;
                ALTER TABLE events RENAME TO segment_1;
                INSERT INTO segments (first_seq, events, bytes, created_at)
                    SELECT 1, count(*), coalesce(sum(length(payload)), 0), CAST(strftime('%s', 'now') AS INTEGER) * 1000
                    FROM segment_1;
                UPDATE queue_state SET floor_seq = coalesce((SELECT min(seq) FROM segment_1), next_seq) - 1 WHERE id = 1;
                INSERT INTO queue_gone (first_seq, last_seq)
                    SELECT seq + 1, following - 1 FROM (
                        SELECT seq, lead(seq, 1, (SELECT next_seq FROM queue_state WHERE id = 1)) OVER (ORDER BY seq) AS following
                        FROM segment_1
                    ) WHERE following > seq + 1;
                """)
            try LogSegments.recreateView([LogSegments.Segment(first: 1, events: 0, bytes: 0)], db)
        }
        migrator.registerMigration("v8-operator-actions") { db in
            // What operators told the engine through its control channel, applied or
            // refused, with who asked (OperatorActionRows keeps the newest 1,000).
            try db.execute(sql: """
                CREATE TABLE operator_actions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    command TEXT NOT NULL,
                    argument TEXT,
                    applied INTEGER NOT NULL,
                    reason TEXT,
                    peer_uid INTEGER,
                    peer_pid INTEGER
                );
                """)
        }
        return migrator
    }

    /// Dead letters now in the store, and those retried and purged over its life.
    struct DeadLetterCounts: Sendable, Hashable {
        var rows = 0
        var retried = 0
        var purged = 0

        /// Reads them; a store from before `v4-operations` (read-only readers) has no
        /// retries or purges.
        static func read(_ db: Database) throws -> DeadLetterCounts {
            var counts = DeadLetterCounts()
            if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM dead_letters")) {
                counts.rows = try StoredRow(row, table: "dead_letters").int(0, "seq")
            }
            guard try db.tableExists("dead_letter_counters"),
                let fetched = try Row.fetchOne(db.cachedStatement(sql: "SELECT retried, purged FROM dead_letter_counters WHERE id = 1"))
            else { return counts }
            let row = StoredRow(fetched, table: "dead_letter_counters")
            counts.retried = try row.int(0, "retried")
            counts.purged = try row.int(1, "purged")
            return counts
        }

        func write(_ db: Database) throws {
            try db.cachedStatement(sql: "UPDATE dead_letter_counters SET retried = ?, purged = ? WHERE id = 1")
                .execute(arguments: [retried, purged])
        }
    }

    /// Throws ``StorageProblem/Kind/newerSchema`` when the store has migrations this
    /// build does not know (a newer Beacon wrote it): nothing must be migrated or written
    /// then, since this build's statements may not fit the newer tables.
    static func refuseNewerSchema(_ db: Database, migrator: DatabaseMigrator, path: String) throws {
        guard try db.tableExists("grdb_migrations") else { return }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        let known = migrator.migrations
        let unknown = applied.filter { !known.contains($0) }
        guard !unknown.isEmpty else { return }
        throw StorageError(
            kind: .newerSchema,
            message: "\(path) has store schema version \(applied.count) (its migrations include \(unknown.joined(separator: ", "))), "
                + "newer than this beacon's version \(known.count) (up to \(known.last ?? "none")); "
                + "use the newer beacon that wrote it, or another store; nothing was changed")
    }

    /// One destination's row in `destinations`.
    struct DestinationState: Sendable, Hashable {
        var name: String
        /// Every event with `seq <= cursor` is done for this destination.
        var cursor: Int64 = 0
        /// Events queued and not done for it.
        var pending: Int = 0
        var delivered: Int = 0
        var deadLettered: Int = 0
        var filtered: Int = 0
        var dropped: Int = 0

        static func readAll(_ db: Database) throws -> [String: DestinationState] {
            var all: [String: DestinationState] = [:]
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT name, cursor, pending, delivered, dead_lettered, filtered, dropped FROM destinations"))
            while let next = try rows.next() {
                let row = StoredRow(next, table: "destinations")
                let state = DestinationState(
                    name: try row.string(0, "name"), cursor: try row.int64(1, "cursor"), pending: try row.int(2, "pending"),
                    delivered: try row.int(3, "delivered"), deadLettered: try row.int(4, "dead_lettered"),
                    filtered: try row.int(5, "filtered"), dropped: try row.int(6, "dropped"))
                all[state.name] = state
            }
            return all
        }

        func write(_ db: Database) throws {
            let statement = try db.cachedStatement(sql: """
                UPDATE destinations SET cursor = ?, pending = ?, delivered = ?, dead_lettered = ?, filtered = ?, dropped = ?
                WHERE name = ?
                """)
            statement.setUncheckedArguments([cursor, pending, delivered, deadLettered, filtered, dropped, name])
            try statement.execute()
        }

        var depth: DestinationDepth {
            DestinationDepth(pending: pending, delivered: delivered, deadLettered: deadLettered, filtered: filtered, dropped: dropped)
        }
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
            guard let fetched = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT next_seq, depth, bytes, committed, delivered, dead_lettered, dropped FROM queue_state WHERE id = 1")
            ) else { return State() }
            let row = StoredRow(fetched, table: "queue_state")
            return State(
                nextSeq: try row.int64(0, "next_seq", in: 1...(1 << 62), meaning: "a sequence number in 1...2^62"),
                depth: try row.int(1, "depth"), bytes: try row.int(2, "bytes"), committed: try row.int(3, "committed"),
                delivered: try row.int(4, "delivered"), deadLettered: try row.int(5, "dead_lettered"),
                dropped: try row.int(6, "dropped"))
        }

        func write(_ db: Database, now: Int64) throws {
            let statement = try db.cachedStatement(sql: """
                UPDATE queue_state SET next_seq = ?, depth = ?, bytes = ?, committed = ?, delivered = ?,
                    dead_lettered = ?, dropped = ?, updated_at = ? WHERE id = 1
                """)
            statement.setUncheckedArguments([nextSeq, depth, bytes, committed, delivered, deadLettered, dropped, now])
            try statement.execute()
        }

        /// ``write(_:now:)`` and the log's floor (`floor_seq`) in the same statement.
        func write(_ db: Database, now: Int64, floor: Int64) throws {
            let statement = try db.cachedStatement(sql: """
                UPDATE queue_state SET next_seq = ?, depth = ?, bytes = ?, committed = ?, delivered = ?,
                    dead_lettered = ?, dropped = ?, updated_at = ?, floor_seq = ? WHERE id = 1
                """)
            statement.setUncheckedArguments([nextSeq, depth, bytes, committed, delivered, deadLettered, dropped, now, floor])
            try statement.execute()
        }

        var totals: QueueTotals {
            QueueTotals(
                accepted: committed, committed: committed, delivered: delivered, deadLettered: deadLettered,
                dropped: dropped)
        }
    }
}

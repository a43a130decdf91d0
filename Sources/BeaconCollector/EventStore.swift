import GRDB

/// The collector's SQLite table of received events, keyed by `messageId`: a batch
/// delivered twice is stored once (`INSERT OR IGNORE`).
final class EventStore: Sendable {
    /// Counts from one insert.
    struct InsertResult: Sendable, Hashable {
        var stored: Int
        var duplicates: Int
    }

    private let writer: any DatabaseWriter

    /// Opens (creating if needed) the store in `path`, or in memory when `path` is `nil`.
    init(path: String?) throws {
        var configuration = Configuration()
        configuration.label = "beacon.collector"
        if let path {
            writer = try DatabasePool(path: path, configuration: configuration)
        } else {
            writer = try DatabaseQueue(configuration: configuration)
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
        }
    }

    /// Inserts every event of an accepted batch in one transaction; events whose
    /// `messageId` is already stored are counted as duplicates.
    ///
    /// Text columns are bound straight from the request body with a cached prepared
    /// statement: no `String` per field and no copy by SQLite (see ``StatementBinder``).
    /// The work runs on GRDB's writer queue, off Swift's cooperative pool.
    func insert(_ batch: AcceptedBatch) async throws -> InsertResult {
        try await writer.write { db in
            let binder = try StatementBinder(try db.cachedStatement(sql: Self.insertSQL), in: db)
            defer { binder.finish() }
            let parsed = batch.parsed
            return try parsed.withText { text in
                /// A string or number field's text, or NULL for any other kind or none.
                func bind(_ field: FieldValue?, at index: Int32) throws {
                    guard let field, field.hasText else { return try binder.bindNull(at: index) }
                    var bytes = text.bytes(field)
                    if field.isDecoded, let nul = bytes.firstIndex(of: 0) {
                        // Keep what binding a Swift String did: SQLite's C-string text
                        // stops at the first NUL (only an escaped \u0000 can put one here).
                        bytes = UnsafeBufferPointer(rebasing: bytes[..<nul])
                    }
                    try binder.bindText(bytes, at: index)
                }
                var result = InsertResult(stored: 0, duplicates: 0)
                for (position, item) in parsed.items.enumerated() {
                    let fields = item.fields
                    let type = batch.types[position]
                    try bind(fields.messageId, at: 1)
                    try binder.bindText(type.name, at: 2)
                    try bind(type == .track ? fields.event : fields.name, at: 3)
                    try bind(fields.userId, at: 4)
                    try bind(fields.anonymousId, at: 5)
                    try bind(fields.timestamp?.hasText == true ? fields.timestamp : fields.originalTimestamp, at: 6)
                    try binder.bindInt64(batch.receivedAtMilliseconds, at: 7)
                    try binder.bindText(text.bytes(item.range), at: 8)
                    if try binder.execute() > 0 {
                        result.stored += 1
                    } else {
                        result.duplicates += 1
                    }
                }
                return result
            }
        }
    }

    private static let insertSQL = """
        INSERT OR IGNORE INTO collector_events
        (message_id, type, name, user_id, anonymous_id, timestamp, received_at, json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The number of stored events.
    func count() async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collector_events") ?? 0
        }
    }

    /// Stored `messageId`s in arrival order.
    func messageIds() async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT message_id FROM collector_events ORDER BY rowid")
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

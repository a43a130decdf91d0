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

    /// Inserts events in one transaction with a cached prepared statement; events whose
    /// `messageId` is already stored are counted as duplicates.
    func insert(_ events: [StoredEvent]) async throws -> InsertResult {
        try await writer.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO collector_events
                    (message_id, type, name, user_id, anonymous_id, timestamp, received_at, json)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            var result = InsertResult(stored: 0, duplicates: 0)
            for event in events {
                statement.setUncheckedArguments([
                    event.messageId, event.type, event.name, event.userId, event.anonymousId, event.timestamp,
                    event.receivedAtMilliseconds, event.json,
                ])
                try statement.execute()
                if db.changesCount > 0 {
                    result.stored += 1
                } else {
                    result.duplicates += 1
                }
            }
            return result
        }
    }

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

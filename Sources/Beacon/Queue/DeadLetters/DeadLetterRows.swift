import BeaconWire
import Foundation
import GRDB

/// Dead letters in a store's tables: read by the engine and by the read-only reader
/// (which may see a store from before `v6-dead-letter-attempts`), written by settle and
/// retry inside their transactions.
///
/// A letter's id is stable across retries: a retry remembers it in
/// `dead_letter_retries` against the copy's new sequence, and when that copy is refused
/// again the letter comes back under the same id with one more row in
/// `dead_letter_attempts`.
enum DeadLetterRows {
    /// The columns ``letter(_:)`` reads. `rowid` is the id (an alias of `id` since
    /// `v4-operations`; a read-only reader may see an older store).
    static let columns = "seq, message_id, name, payload, reason, destination, status, failed_at, rowid"

    /// The newest letters, newest first.
    static func newest(_ db: Database, limit: Int) throws -> [DeadLetter] {
        try fetch(db, sql: "SELECT \(columns) FROM dead_letters ORDER BY failed_at DESC, seq DESC, destination LIMIT ?",
                  arguments: [max(0, limit)])
    }

    /// Letters above `afterID`, oldest first.
    static func after(_ db: Database, afterID: Int64, limit: Int) throws -> [DeadLetter] {
        try fetch(db, sql: "SELECT \(columns) FROM dead_letters WHERE rowid > ? ORDER BY rowid LIMIT ?", arguments: [afterID, max(0, limit)])
    }

    /// The letter with this id.
    static func one(_ db: Database, id: Int64) throws -> DeadLetter? {
        try fetch(db, sql: "SELECT \(columns) FROM dead_letters WHERE rowid = ?", arguments: [id]).first
    }

    /// Every letter `query` finds, oldest first (what a bulk retry or purge acts on).
    static func all(_ db: Database, matching query: DeadLetterQuery) throws -> [DeadLetter] {
        let (condition, arguments) = whereClause(query)
        return try fetch(db, sql: "SELECT \(columns) FROM dead_letters WHERE \(condition) ORDER BY rowid", arguments: arguments)
    }

    /// The newest letters `query` finds, and their number.
    static func page(_ db: Database, matching query: DeadLetterQuery, limit: Int) throws -> DeadLetterPage {
        let (condition, arguments) = whereClause(query)
        var limited = arguments
        limited += [max(0, limit)]
        let letters = try fetch(
            db, sql: "SELECT \(columns) FROM dead_letters WHERE \(condition) ORDER BY failed_at DESC, seq DESC, destination LIMIT ?",
            arguments: limited)
        var total = letters.count
        if let row = try Row.fetchOne(db, sql: "SELECT count(*) FROM dead_letters WHERE \(condition)", arguments: arguments) {
            total = try StoredRow(row, table: "dead_letters").int(0, "count")
        }
        return DeadLetterPage(letters: letters, total: total)
    }

    /// The SQL condition for `query` (ASCII case ignored, as ``DeadLetterQuery/matches(_:)``).
    static func whereClause(_ query: DeadLetterQuery) -> (String, StatementArguments) {
        var conditions = ["1"]
        var arguments: StatementArguments = []
        if let destination = query.destination {
            conditions.append("destination = ?")
            arguments += [destination]
        }
        if let reason = query.reason {
            conditions.append("instr(lower(reason), lower(?)) > 0")
            arguments += [reason]
        }
        if let text = query.text {
            conditions.append("""
                (instr(lower(message_id), lower(?)) > 0 OR instr(lower(name), lower(?)) > 0
                 OR instr(lower(reason), lower(?)) > 0 OR instr(lower(CAST(payload AS TEXT)), lower(?)) > 0)
                """)
            arguments += [text, text, text, text]
        }
        return (conditions.joined(separator: " AND "), arguments)
    }

    /// Stores `letter`, refused by `destination`: under the id it had before a retry when
    /// its copy came from one, with its attempt recorded.
    static func insert(_ letter: DeadLetter, destination: String, _ db: Database) throws {
        let sequence = letter.event.sequence
        var retriedID: Int64?
        if let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT letter_id FROM dead_letter_retries WHERE seq = ? AND destination = ?"),
            arguments: [sequence, destination]) {
            retriedID = try StoredRow(row, table: "dead_letter_retries").int64(0, "letter_id")
            try db.cachedStatement(sql: "DELETE FROM dead_letter_retries WHERE seq = ? AND destination = ?")
                .execute(arguments: [sequence, destination])
        }
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO dead_letters (id, seq, destination, message_id, name, payload, reason, status, failed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                retriedID, sequence, destination, letter.event.messageId, letter.event.name, Data(letter.event.payload),
                letter.reason, letter.status, letter.failedAt.millisecondsSince1970,
            ])
        let id = retriedID ?? db.lastInsertedRowID
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO dead_letter_attempts (letter_id, attempt, reason, status, failed_at)
            VALUES (?1, coalesce((SELECT max(attempt) FROM dead_letter_attempts WHERE letter_id = ?1), 0) + 1, ?2, ?3, ?4)
            """).execute(arguments: [id, letter.reason, letter.status, letter.failedAt.millisecondsSince1970])
    }

    /// Remembers that dead letter `id` went back into the queue as `sequence` for
    /// `destination`, so a new refusal finds its id and history.
    static func recordRetry(id: Int64, sequence: Int64, destination: String, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO dead_letter_retries (seq, destination, letter_id) VALUES (?, ?, ?)")
            .execute(arguments: [sequence, destination, id])
    }

    /// Forgets retries whose copy left the queue (delivered, or dropped by the overflow)
    /// and the history of letters that are gone for good. Runs after an operator's retry
    /// or purge, so it never costs the delivery path.
    static func prune(_ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM dead_letter_retries WHERE NOT EXISTS (SELECT 1 FROM events WHERE events.seq = dead_letter_retries.seq);
            DELETE FROM dead_letter_attempts
                WHERE letter_id NOT IN (SELECT id FROM dead_letters) AND letter_id NOT IN (SELECT letter_id FROM dead_letter_retries);
            """)
    }

    /// Letters from `sql` (selecting ``columns``), each with its attempts.
    private static func fetch(_ db: Database, sql: String, arguments: StatementArguments) throws -> [DeadLetter] {
        let hasAttempts = try db.tableExists("dead_letter_attempts")
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { fetched in
            var letter = try letter(fetched)
            if hasAttempts { letter.attempts = try attempts(of: letter, db) }
            return letter
        }
    }

    /// A letter from a row of ``columns``, with its one known attempt.
    private static func letter(_ fetched: Row) throws -> DeadLetter {
        let row = StoredRow(fetched, table: "dead_letters")
        return DeadLetter(
            event: QueuedEvent(
                sequence: try row.int64(0, "seq"), messageId: try row.string(1, "message_id"), name: try row.string(2, "name"),
                payload: [UInt8](try row.bytes(3, "payload"))),
            reason: try row.string(4, "reason"), destination: try row.string(5, "destination"),
            status: try row.optionalInt(6, "status"),
            failedAt: Timestamp(millisecondsSince1970: try row.timestamp(7, "failed_at")),
            id: try row.int64(8, "id"))
    }

    /// `letter`'s recorded attempts, oldest first; its own refusal alone when none are
    /// recorded (a letter from before the table, on a store written by an older build).
    private static func attempts(of letter: DeadLetter, _ db: Database) throws -> [DeadLetterAttempt] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT attempt, reason, status, failed_at FROM dead_letter_attempts WHERE letter_id = ? ORDER BY attempt"),
            arguments: [letter.id])
        let recorded = try rows.map { fetched in
            let row = StoredRow(fetched, table: "dead_letter_attempts")
            return DeadLetterAttempt(
                number: try row.int(0, "attempt"), reason: try row.string(1, "reason"), status: try row.optionalInt(2, "status"),
                failedAt: Timestamp(millisecondsSince1970: try row.timestamp(3, "failed_at")))
        }
        return recorded.isEmpty ? letter.attempts : recorded
    }
}

import BeaconWire
import GRDB
import GRDBSQLite

/// The segments of a store's log: each a table of its own (`segment_<first seq>`) holding
/// a contiguous run of sequence numbers, listed in `segments`. Each group commit goes
/// whole to the last one (the tail), or to a new one once the tail holds ``Limits/events``
/// events or ``Limits/bytes`` bytes; a segment whose events have all left the queue is dropped whole (`DROP TABLE` frees
/// its pages without rewriting them, where deleting rows rewrote every page into the
/// write-ahead log). The `events` view shows the queued events of every segment, for
/// people with `sqlite3` and for older tools' queries.
struct LogSegments: Sendable, Hashable {
    /// When the tail segment is full.
    struct Limits: Sendable, Hashable {
        var events: Int64 = 16_384
        var bytes: Int64 = 8 << 20
    }

    /// One segment's row.
    struct Segment: Sendable, Hashable {
        var first: Int64
        var events: Int64
        var bytes: Int64
        var table: String { LogSegments.table(first) }
    }

    /// Ascending by first sequence number.
    private(set) var segments: [Segment]

    static func table(_ first: Int64) -> String { "segment_\(first)" }

    static let columns = "seq INTEGER PRIMARY KEY, message_id TEXT NOT NULL, name TEXT NOT NULL, payload BLOB NOT NULL, created_at INTEGER NOT NULL"

    static func read(_ db: Database) throws -> LogSegments {
        var segments: [Segment] = []
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT first_seq, events, bytes FROM segments ORDER BY first_seq"))
        while let next = try rows.next() {
            let row = StoredRow(next, table: "segments")
            segments.append(Segment(
                first: try row.int64(0, "first_seq", in: 1...(1 << 62), meaning: "a sequence number in 1...2^62"),
                events: try row.int64(1, "events"), bytes: try row.int64(2, "bytes")))
        }
        return LogSegments(segments: segments)
    }

    var tail: Segment? { segments.last }

    /// The segments that may hold numbers in `lower...upper`, with the part of the range
    /// each covers.
    func covering(_ lower: Int64, _ upper: Int64) -> [(table: String, lower: Int64, upper: Int64)] {
        var result: [(String, Int64, Int64)] = []
        for (index, segment) in segments.enumerated() {
            let end = index + 1 < segments.count ? segments[index + 1].first - 1 : Int64.max
            let from = max(lower, segment.first)
            let to = min(upper, end)
            if from <= to { result.append((segment.table, from, to)) }
        }
        return result
    }

    // MARK: Writing (inside the writer's transactions)

    /// Appends `events` numbered from `firstSeq`, first starting a new tail segment when
    /// there is none or it is full.
    mutating func append(_ events: [PendingEvent], firstSeq: Int64, limits: Limits, _ db: Database) throws {
        guard !events.isEmpty else { return }
        if let tail, tail.events < limits.events, tail.bytes < limits.bytes {} else {
            try create(first: firstSeq, db)
        }
        guard var tail = segments.popLast() else { return }
        try EventRowInserter(db, table: tail.table).insert(events, firstSeq: firstSeq)
        let bytes = events.reduce(0) { $0 + Int64($1.payload.count) }
        tail.events += Int64(events.count)
        tail.bytes += bytes
        segments.append(tail)
        try db.cachedStatement(sql: "UPDATE segments SET events = ?, bytes = ? WHERE first_seq = ?")
            .execute(arguments: [tail.events, tail.bytes, tail.first])
    }

    /// Starts a segment at `first`.
    private mutating func create(first: Int64, _ db: Database) throws {
        try db.execute(sql: "CREATE TABLE \(Self.table(first)) (\(Self.columns))")
        try db.execute(
            sql: "INSERT INTO segments (first_seq, events, bytes, created_at) VALUES (?, 0, 0, ?)",
            arguments: [first, Timestamp.now().millisecondsSince1970])
        segments.append(Segment(first: first, events: 0, bytes: 0))
        try Self.recreateView(segments, db)
    }

    /// Drops every segment but the tail whose numbers all lie at or below `floor`.
    /// Returns how many went.
    @discardableResult
    mutating func dropThrough(_ floor: Int64, _ db: Database) throws -> Int {
        var dropped = 0
        while segments.count > 1, segments[1].first - 1 <= floor {
            let segment = segments.removeFirst()
            try db.execute(sql: "DROP TABLE IF EXISTS \(segment.table)")
            try db.execute(sql: "DELETE FROM segments WHERE first_seq = ?", arguments: [segment.first])
            dropped += 1
        }
        if dropped > 0 { try Self.recreateView(segments, db) }
        return dropped
    }

    /// The `events` view: the queued events of every segment (above the floor, not gone).
    static func recreateView(_ segments: [Segment], _ db: Database) throws {
        let union = segments.isEmpty
            ? "SELECT NULL AS seq, NULL AS message_id, NULL AS name, NULL AS payload, NULL AS created_at WHERE 0"
            : segments.map { "SELECT seq, message_id, name, payload, created_at FROM \($0.table)" }.joined(separator: " UNION ALL ")
        try db.execute(sql: """
            DROP VIEW IF EXISTS events;
            CREATE VIEW events AS SELECT * FROM (\(union)) AS stored
                WHERE seq > (SELECT floor_seq FROM queue_state WHERE id = 1)
                AND NOT EXISTS (SELECT 1 FROM queue_gone WHERE stored.seq BETWEEN queue_gone.first_seq AND queue_gone.last_seq);
            """)
        // Statements compiled against the old tables go: they would point at dropped ones.
        db.clearSchemaCache()
    }

    // MARK: Reading

    /// The events numbered in `wanted`, oldest first: at most `limit`, and no more than
    /// `maxBytes` of payload (but at least one when any is there). Their payloads are
    /// slices of one buffer.
    func read(_ wanted: SequenceRanges, limit: Int, maxBytes: Int, _ db: Database) throws -> [QueuedEvent] {
        var batch = ReadBatch()
        reading: for range in wanted.ranges {
            for part in covering(range.lowerBound, range.upperBound) {
                let statement = try db.cachedStatement(
                    sql: "SELECT seq, message_id, name, payload FROM \(part.table) WHERE seq BETWEEN ? AND ? ORDER BY seq")
                statement.setUncheckedArguments([part.lower, part.upper])
                let full = try Self.step(statement, part: part, into: &batch, limit: limit, maxBytes: maxBytes, db)
                if full { break reading }
            }
        }
        return batch.events()
    }

    /// Payload bytes of the events numbered in `sequences`.
    func payloadBytes(of sequences: SequenceRanges, _ db: Database) throws -> Int {
        var total = 0
        for range in sequences.ranges {
            for part in covering(range.lowerBound, range.upperBound) {
                let value = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT coalesce(sum(length(payload)), 0) FROM \(part.table) WHERE seq BETWEEN ? AND ?"),
                    arguments: [part.lower, part.upper]) ?? 0
                guard value >= 0, value <= StoreSchema.integerRange.upperBound else {
                    throw StoreDamage(table: part.table, column: "payload", found: "\(value)", expected: "a size within 2^62")
                }
                total += Int(clamping: value)  // checked above: within 0...2^62
            }
        }
        return total
    }

    /// When event `sequence` was committed, if it is in the log.
    func createdAt(of sequence: Int64, _ db: Database) throws -> Int64? {
        guard let part = covering(sequence, sequence).first else { return nil }
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT created_at FROM \(part.table) WHERE seq = ?"), arguments: [sequence])
        return try row.map { try StoredRow($0, table: part.table).timestamp(0, "created_at") }
    }

    /// Events and their payload sizes, oldest first, among `candidates`, for the overflow
    /// policy to choose from; stops once `enough` says so.
    func sizes(
        of candidates: SequenceRanges, _ db: Database, until enough: (_ events: Int, _ bytes: Int) -> Bool
    ) throws -> [(sequence: Int64, bytes: Int)] {
        var found: [(Int64, Int)] = []
        var bytes = 0
        for range in candidates.ranges {
            for part in covering(range.lowerBound, range.upperBound) {
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT seq, length(payload) FROM \(part.table) WHERE seq BETWEEN ? AND ? ORDER BY seq",
                    arguments: [part.lower, part.upper])
                while let next = try rows.next() {
                    if enough(found.count, bytes) { return found }
                    let row = StoredRow(next, table: part.table)
                    let size = try row.int(1, "payload")
                    found.append((try row.int64(0, "seq"), size))
                    bytes += size
                }
            }
        }
        return found
    }

    /// Steps `statement` (seq, message_id, name, payload), reading columns straight from
    /// SQLite: a batch of 500 events is read in a fraction of the time GRDB rows take.
    /// Every number in `part` is a queued event: a row missing is damage (someone edited
    /// the table), reported rather than skipped. Returns whether the batch is full.
    private static func step(
        _ statement: Statement, part: (table: String, lower: Int64, upper: Int64), into batch: inout ReadBatch,
        limit: Int, maxBytes: Int, _ db: Database
    ) throws -> Bool {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var expected = part.lower
        while batch.count < max(1, limit) {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE {
                guard expected > part.upper else {
                    throw StoreDamage(table: part.table, column: "seq", found: "no row", expected: "queued event \(expected)")
                }
                return false
            }
            guard code == SQLITE_ROW else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage) }
            let sequence = sqlite3_column_int64(handle, 0)  // the rowid: always an integer
            guard sequence == expected else {
                throw StoreDamage(table: part.table, column: "seq", found: "\(sequence)", expected: "queued event \(expected)")
            }
            expected += 1
            let size = Int(sqlite3_column_bytes(handle, 3))
            if batch.count > 0, batch.payloadBytes + size > maxBytes { return true }
            let id = bytes(handle, 1), name = bytes(handle, 2)
            if batch.count == 0 {
                // Room for `limit` events the size of the first, within `maxBytes` (and
                // 8 MiB, past which doubling costs little): one allocation for a batch of
                // like events, not a doubling every few.
                let (guess, overflow) = (size + id.count + name.count).multipliedReportingOverflow(by: max(1, limit))
                batch.reserve(bytes: min(overflow ? .max : guess, maxBytes, 8 << 20), rows: min(max(1, limit), 4096))
            }
            let blob = size > 0 ? sqlite3_column_blob(handle, 3) : nil
            batch.append(sequence: sequence, messageId: id, name: name, payload: UnsafeRawBufferPointer(start: blob, count: blob == nil ? 0 : size))
        }
        return true
    }

    /// A text column's bytes, valid until the statement steps again.
    private static func bytes(_ handle: SQLiteStatement, _ column: Int32) -> UnsafeRawBufferPointer {
        guard let pointer = sqlite3_column_text(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }
}

/// The events of one read as they are stepped: their ids, names and payloads appended to
/// one buffer, sliced only once it stops growing (a slice taken earlier would hold an old
/// copy).
private struct ReadBatch {
    /// Each event's `messageId`, name and payload, one after another.
    private(set) var bytes: [UInt8] = []
    /// The payloads' bytes alone: what a batch's byte limit counts.
    private(set) var payloadBytes = 0
    /// Where each event's `messageId`, name and payload end in ``bytes``.
    private var rows: [(sequence: Int64, idEnd: Int, nameEnd: Int, end: Int)] = []

    var count: Int { rows.count }

    mutating func reserve(bytes capacity: Int, rows count: Int) {
        bytes.reserveCapacity(max(0, capacity))
        rows.reserveCapacity(count)
    }

    mutating func append(sequence: Int64, messageId: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: messageId)
        let idEnd = bytes.count
        bytes.append(contentsOf: name)
        let nameEnd = bytes.count
        bytes.append(contentsOf: payload)
        payloadBytes += payload.count
        rows.append((sequence, idEnd, nameEnd, bytes.count))
    }

    /// The events, each field a slice of the finished buffer.
    func events() -> [QueuedEvent] {
        var start = 0
        return rows.map { row in
            defer { start = row.end }
            return QueuedEvent(
                sequence: row.sequence, messageIdBytes: bytes[start..<row.idEnd], nameBytes: bytes[row.idEnd..<row.nameEnd],
                payloadBytes: bytes[row.nameEnd..<row.end])
        }
    }
}

import GRDB

/// Reading and writing the cursors: `queue_state.floor_seq`, `queue_gone`,
/// `destinations.cursor` and `destination_done` (ranges).
extension LogCursors {
    /// Reads them; `destinations` gives each registered destination's cursor.
    static func read(_ db: Database, destinations: [String: StoreSchema.DestinationState]) throws -> LogCursors {
        var cursors = LogCursors(floor: try readFloor(db))
        cursors.gone = try ranges(db.cachedStatement(sql: "SELECT first_seq, last_seq FROM queue_gone"), table: "queue_gone")
        for destination in destinations.values {
            cursors.positions[destination.name] = Position(cursor: destination.cursor)
        }
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT destination, first_seq, last_seq FROM destination_done"))
        while let next = try rows.next() {
            let row = StoredRow(next, table: "destination_done")
            let name = try row.string(0, "destination")
            let range = try Self.range(row)
            cursors.positions[name]?.done.insert(range)
        }
        cursors.normalize()
        return cursors
    }

    /// The floor alone (every event at or below it has left).
    static func readFloor(_ db: Database) throws -> Int64 {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT floor_seq FROM queue_state WHERE id = 1"))
        return try row.map {
            try StoredRow($0, table: "queue_state").int64(0, "floor_seq", in: sequenceRange, meaning: "a sequence number in 0...2^62")
        } ?? 0
    }

    /// Writes what differs from `old`: the floor (unless the caller writes it with the
    /// store's counters, `floor: false`), the ranges that left, each changed destination's
    /// ranges (its cursor goes with its row in `destinations`).
    func write(changedFrom old: LogCursors, _ db: Database, floor writesFloor: Bool = true) throws {
        if writesFloor, floor != old.floor {
            try db.cachedStatement(sql: "UPDATE queue_state SET floor_seq = ? WHERE id = 1").execute(arguments: [floor])
        }
        if gone != old.gone {
            try db.cachedStatement(sql: "DELETE FROM queue_gone").execute()
            for range in gone.ranges {
                try db.cachedStatement(sql: "INSERT INTO queue_gone (first_seq, last_seq) VALUES (?, ?)")
                    .execute(arguments: [range.lowerBound, range.upperBound])
            }
        }
        for (name, position) in positions where position.done != old.positions[name]?.done {
            try db.cachedStatement(sql: "DELETE FROM destination_done WHERE destination = ?").execute(arguments: [name])
            for range in position.done.ranges {
                try db.cachedStatement(sql: "INSERT INTO destination_done (destination, first_seq, last_seq) VALUES (?, ?, ?)")
                    .execute(arguments: [name, range.lowerBound, range.upperBound])
            }
        }
    }

    /// Where the floor and the ranges must lie: sequence numbers are never negative, so the
    /// count of any range set within it (at most 2^62 + 1) cannot overflow.
    static let sequenceRange: ClosedRange<Int64> = 0...(1 << 62)

    private static func ranges(_ statement: Statement, table: String) throws -> SequenceRanges {
        var set = SequenceRanges()
        let rows = try Row.fetchCursor(statement)
        while let next = try rows.next() { set.insert(try range(StoredRow(next, table: table), offset: 0)) }
        return set
    }

    private static func range(_ row: StoredRow, offset: Int = 1) throws -> ClosedRange<Int64> {
        let first = try row.int64(offset, "first_seq", in: sequenceRange, meaning: "a sequence number in 0...2^62")
        let last = try row.int64(offset + 1, "last_seq", in: sequenceRange, meaning: "a sequence number in 0...2^62")
        guard first <= last else {
            throw StoreDamage(table: row.table, column: "last_seq", found: "\(last)", expected: "at least first_seq \(first)")
        }
        return first...last
    }
}

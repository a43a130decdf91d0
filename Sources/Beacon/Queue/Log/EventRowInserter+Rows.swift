import GRDB
import GRDBSQLite

extension EventRowInserter {
    /// Rows inserted by the largest statement (five parameters each).
    public static let rowsPerStatement = 64

    /// Inserts `events` with sequence numbers from `firstSeq` on, in statements of up to
    /// ``rowsPerStatement`` rows (64, 32, ..., 1: a handful of cached statements fit any
    /// group). One statement for many rows spares SQLite most of what it does once per
    /// statement run (reset, cursors, halting), which was most of the cost of a small row.
    ///
    /// The text and blob columns of each statement's rows are copied once into one scratch
    /// buffer and bound from it without another copy by SQLite (`SQLITE_STATIC`).
    public func insert(_ events: [PendingEvent], firstSeq: Int64) throws {
        var position = 0
        var rows = Self.rowsPerStatement
        var scratch: [UInt8] = []
        var spans: [(id: Range<Int>, name: Range<Int>, payload: Range<Int>)] = []
        spans.reserveCapacity(Self.rowsPerStatement)
        while position < events.count {
            while rows > events.count - position { rows /= 2 }
            let statement = try db.cachedStatement(
                sql: "INSERT INTO \(table) (seq, message_id, name, payload, created_at) VALUES " + Self.valueLists[rows.trailingZeroBitCount])
            // One byte first: the buffer has an address even when every span is empty (a
            // NULL pointer would bind NULL, not an empty text).
            scratch.removeAll(keepingCapacity: true)
            scratch.append(0)
            spans.removeAll(keepingCapacity: true)
            for event in events[position..<(position + rows)] {
                var id = event.messageId
                var name = event.name
                let idStart = scratch.count
                id.withUTF8 { scratch.append(contentsOf: $0) }
                let nameStart = scratch.count
                name.withUTF8 { scratch.append(contentsOf: $0) }
                let payloadStart = scratch.count
                scratch.append(contentsOf: event.payload)
                spans.append((idStart..<nameStart, nameStart..<payloadStart, payloadStart..<scratch.count))
            }
            let handle = statement.sqliteStatement
            let code = scratch.withUnsafeBufferPointer { bytes -> Int32 in
                defer {
                    sqlite3_reset(handle)
                    sqlite3_clear_bindings(handle)  // the bound pointers are only valid during the step
                }
                guard let base = bytes.baseAddress else { return SQLITE_MISUSE }  // never: it holds the first byte
                for row in 0..<rows {
                    let event = events[position + row]
                    let span = spans[row]
                    let first = Int32(row * 5)  // checked: row < 64
                    sqlite3_bind_int64(handle, first + 1, firstSeq + Int64(position + row))
                    bindText(handle, first + 2, base, span.id)
                    bindText(handle, first + 3, base, span.name)
                    if span.payload.isEmpty {
                        sqlite3_bind_zeroblob(handle, first + 4, 0)
                    } else {
                        sqlite3_bind_blob(handle, first + 4, base + span.payload.lowerBound, Int32(span.payload.count), nil)
                    }
                    sqlite3_bind_int64(handle, first + 5, event.createdAt.millisecondsSince1970)
                }
                return sqlite3_step(handle)
            }
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage)
            }
            position += rows
        }
    }

    private func bindText(_ handle: SQLiteStatement, _ index: Int32, _ base: UnsafePointer<UInt8>, _ span: Range<Int>) {
        let pointer = UnsafeRawPointer(base + span.lowerBound).assumingMemoryBound(to: CChar.self)
        sqlite3_bind_text(handle, index, pointer, Int32(span.count), nil)
    }

    /// The `VALUES` lists of 1, 2, 4, ..., ``rowsPerStatement`` rows, by power of two.
    private static let valueLists: [String] = (0...rowsPerStatement.trailingZeroBitCount).map { power in
        Array(repeating: "(?, ?, ?, ?, ?)", count: 1 << power).joined(separator: ", ")
    }
}

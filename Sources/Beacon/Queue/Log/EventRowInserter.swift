import GRDB
import GRDBSQLite

/// Inserts rows into a segment of the log (``LogSegments``) through one cached statement, binding straight
/// from Swift's storage with `SQLITE_STATIC` (SQLite reads the bytes during the step and
/// copies nothing): no `StatementArguments`, no `Data` copy of each payload. The enqueue
/// path and its raw-SQLite baseline in `beacon bench enqueue` both use it.
@_spi(Benchmarks) public struct EventRowInserter {
    private let statement: Statement
    let db: Database
    /// The segment table the rows go to.
    let table: String

    /// The first segment of a new store: where a raw baseline inserts.
    public static let firstSegment = LogSegments.table(1)

    /// Prepares (or takes from `db`'s cache) the insert statement into `table`.
    public init(_ db: Database, table: String) throws {
        self.db = db
        self.table = table
        statement = try db.cachedStatement(
            sql: "INSERT INTO \(table) (seq, message_id, name, payload, created_at) VALUES (?, ?, ?, ?, ?)")
    }

    /// Inserts one row; throws the SQLite error (as a GRDB `DatabaseError`) when the step fails.
    public func insert(seq: Int64, messageId: String, name: String, payload: [UInt8], createdAt: Int64) throws {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)  // the bound pointers are only valid during the step
        }
        var messageId = messageId
        var name = name
        let code = messageId.withUTF8 { id in
            name.withUTF8 { name in
                payload.withUnsafeBytes { payload in
                    sqlite3_bind_int64(handle, 1, seq)
                    sqlite3_bind_text(handle, 2, id.baseAddress, Int32(id.count), nil)
                    sqlite3_bind_text(handle, 3, name.baseAddress, Int32(name.count), nil)
                    if let blob = payload.baseAddress {
                        sqlite3_bind_blob(handle, 4, blob, Int32(payload.count), nil)
                    } else {
                        sqlite3_bind_zeroblob(handle, 4, 0)  // empty: a NULL pointer would bind NULL
                    }
                    sqlite3_bind_int64(handle, 5, createdAt)
                    return sqlite3_step(handle)
                }
            }
        }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage)
        }
    }
}

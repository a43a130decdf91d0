import GRDB
import GRDBSQLite

/// Binds and runs a prepared statement through the SQLite C API, handing SQLite pointers
/// to bytes it does not copy (`SQLITE_STATIC`).
///
/// GRDB's `setUncheckedArguments` boxes every value as a `DatabaseValue` and has SQLite
/// copy each string (`SQLITE_TRANSIENT`); for the collector's insert of a few hundred
/// rows of eight columns that was most of the time spent storing a batch. Here text is
/// bound straight from the request body.
///
/// The caller keeps every bound buffer alive until ``finish()``, which resets the
/// statement and clears its bindings so that no pointer outlives the buffers. Use it only
/// inside the database access that owns `statement`.
struct StatementBinder {
    private let statement: SQLiteStatement
    private let connection: SQLiteConnection

    /// A binder for `statement` of the open connection `db`.
    init(_ statement: Statement, in db: Database) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database connection is closed")
        }
        self.statement = statement.sqliteStatement
        self.connection = connection
        // A cached statement is reset after every use; resetting again is harmless.
        sqlite3_reset(self.statement)
    }

    /// Binds UTF-8 text (SQLite does not copy it).
    func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws {
        // An empty buffer may have no address, and a null pointer would bind NULL, not ''.
        let pointer = bytes.isEmpty ? Self.empty : UnsafeRawPointer(bytes.baseAddress!)
        try check(
            sqlite3_bind_text64(
                statement, index, pointer.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count), nil,
                UInt8(SQLITE_UTF8)))
    }

    /// Binds a static string (SQLite does not copy it).
    func bindText(_ text: StaticString, at index: Int32) throws {
        try bindText(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), at: index)
    }

    /// Binds a 64-bit integer.
    func bindInt64(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(statement, index, value))
    }

    /// Binds NULL.
    func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(statement, index))
    }

    /// Runs the statement once (it must return no rows) and resets it for the next
    /// bindings; returns the number of rows it changed.
    func execute() throws -> Int {
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(statement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        let changes = Int(sqlite3_changes(connection))
        try check(sqlite3_reset(statement))
        return changes
    }

    /// Resets the statement and clears its bindings: after this, SQLite holds no pointer
    /// to the bound buffers.
    func finish() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    private static var empty: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }
}

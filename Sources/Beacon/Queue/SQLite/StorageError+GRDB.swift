import GRDB

extension StorageError {
    /// Classifies an error from SQLite into a storage problem a user can act on.
    init(_ error: any Error, path: String) {
        if let error = error as? StorageError {
            self = error
            return
        }
        if let damage = error as? StoreDamage {
            self = .damaged(path: path, table: damage.table, column: damage.column, found: damage.found, expected: damage.expected)
            return
        }
        guard let error = error as? DatabaseError else {
            self.init(kind: .other, message: "\(error)")
            return
        }
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_FULL:
            self.init(kind: .diskFull, message: "\(path): \(detail); free disk space or raise the store's size limit")
        case .SQLITE_READONLY:
            self.init(kind: .readOnly, message: "\(path): \(detail); make the file and its folder writable")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self.init(kind: .locked, message: "\(path): \(detail); another process holds a write lock on the store")
        case .SQLITE_CANTOPEN:
            self.init(kind: .ioError, message: "\(path): \(StorePathLength.problem(path) ?? detail)")
        case .SQLITE_IOERR:
            self.init(kind: .ioError, message: "\(path): \(detail)")
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            self.init(kind: .other, message: "\(path) is not a usable Beacon store: \(detail)")
        default:
            self.init(kind: .other, message: "\(path): \(detail)")
        }
    }
}

import GRDB
#if canImport(Glibc)
import Glibc
#endif

extension StoreSchema {
    /// Passes over a store that keeps changing under a concurrent opener, at most.
    static let maxMigrationPasses = 50

    /// Opens a pool on the store at `path`, safe under several processes opening a new
    /// store at once.
    ///
    /// Opening a pool switches the file to WAL (`PRAGMA journal_mode = WAL`). When another
    /// process holds a lock on a new file at that moment, SQLite answers "database is
    /// locked" at once, without waiting on the busy handler: 1 of 80 processes when four
    /// `beacon track` started together on a new store. The open is tried again, a few
    /// milliseconds apart, for up to `patience`; any other error is thrown at once.
    static func openPool(path: String, configuration: Configuration, patience: Duration) throws -> DatabasePool {
        let deadline = ContinuousClock.now + patience
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError
                where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && ContinuousClock.now < deadline
            {
                usleep(UInt32(min(attempt, 10) * 1_000))
            }
        }
    }

    /// Brings the store at `path` to this build's schema, safe under any number of
    /// processes opening it at once (four `beacon track` on a new store, two agents).
    ///
    /// GRDB reads which migrations are applied, then runs each missing one in a
    /// transaction of its own that also records it. An opener that read the list just
    /// before another one committed a migration fails on its `CREATE TABLE` ("already
    /// exists"), on the record's primary key, or on a locked database. Since every
    /// migration commits together with its record, the next pass sees it applied: the
    /// opener tries again until a pass finds nothing left to do (``maxMigrationPasses``
    /// at most, a few milliseconds apart). A newer store is refused before each pass.
    static func migrate(_ pool: DatabasePool, path: String) throws {
        let migrator = migrator()
        var pass = 0
        while true {
            pass += 1
            do {
                try pool.read { db in try refuseNewerSchema(db, migrator: migrator, path: path) }
                try migrator.migrate(pool)
                return
            } catch let error as DatabaseError where pass < maxMigrationPasses && isConcurrentMigration(error) {
                // An unreadable store here is tried again by the next pass, which reports its error.
                if (try? pool.read({ db in try migrator.hasCompletedMigrations(db) })) == true { return }
                usleep(UInt32(min(pass, 10) * 1_000))
            }
        }
    }

    /// Whether `error` is what a migration meets when another process migrates the same
    /// store at the same moment.
    static func isConcurrentMigration(_ error: DatabaseError) -> Bool {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return true
        case .SQLITE_CONSTRAINT: return error.message?.contains("grdb_migrations") == true
        case .SQLITE_ERROR:
            let message = error.message ?? ""
            return message.contains("already exists") || message.contains("duplicate column")
        default: return false
        }
    }
}

import Foundation
import GRDB

/// Brings a benchmark's store to rest before the next measurement starts, so that one
/// run's leftover work does not land in another's time.
///
/// A queue copies its log into the database on a thread of its own, and the last
/// connection to close copies the rest: after a 200,000-event run that is up to 16 MB of
/// writes and two fsyncs, running while the next figure is timed, and the kernel is
/// still writing the run's dirty pages back. Measured in turn (11 runs each), "engine
/// running" came out at 0.917 of "bare tracker" with that leftover, and at 0.951–0.958
/// with each store brought to rest first.
enum StoreRest {
    /// Copies the whole log of the store at `path` into the database and truncates it,
    /// waiting (up to 30 s) for a checkpoint under way on another connection to finish.
    /// The store's own connections may stay open; none may be writing.
    static func checkpoint(_ path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        try connection.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try connection.close()
    }

    /// Writes the filesystem's dirty pages out (`sync(2)`), so that the next run does not
    /// share the disk and a core with the writeback of the previous one.
    static func flushFilesystem() {
        sync()
    }
}

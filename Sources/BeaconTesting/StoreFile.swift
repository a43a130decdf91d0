import GRDB

/// A test's own connection to a store or collector file, to look inside it or damage it.
public enum StoreFile {
    /// Opens `path` with a busy timeout of 10 seconds. The engine's and the collector's
    /// connections close on GRDB's queues as they go, and the last one to close
    /// checkpoints the write-ahead log while holding the file: a connection opened just
    /// then without a timeout fails with "database is locked" (seen with tests two at a
    /// time).
    public static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

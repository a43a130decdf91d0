#if canImport(Glibc)
import Glibc
#endif

/// What a store's files look like from outside: the database's and its write-ahead log's
/// identity, size and modification time (to the nanosecond). Any commit writes the log,
/// a checkpoint the database: an equal stamp means nothing was written, so a watcher may
/// skip its read. A file that cannot be looked at stamps as absent.
public struct StoreFilesStamp: Sendable, Hashable {
    struct File: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    private let database: File?
    private let log: File?

    /// The stamp of the store at `path` now.
    public init(path: String) {
        database = Self.file(path)
        log = Self.file(path + "-wal")
    }

    private static func file(_ path: String) -> File? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return File(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), seconds: info.st_mtim.tv_sec,
            nanoseconds: info.st_mtim.tv_nsec)
    }
}

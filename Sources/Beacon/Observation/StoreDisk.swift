import Glibc

/// The disk under a store: how much the store's files take and how much room is left on
/// their filesystem, which is what an event queue runs out of. Read with `stat` and
/// `statvfs` (a few microseconds), once per observer tick.
public struct StoreDisk: Sendable, Hashable {
    /// Bytes of the store's files: the database, its write-ahead log and its index.
    public var storeBytes: Int
    /// Bytes a writer that is not root may still use on their filesystem.
    public var freeBytes: Int
    /// The filesystem's size.
    public var totalBytes: Int

    public init(storeBytes: Int, freeBytes: Int, totalBytes: Int) {
        self.storeBytes = max(0, storeBytes)
        self.freeBytes = max(0, freeBytes)
        self.totalBytes = max(0, totalBytes)
    }

    /// The disk under the store at `path` (`nil`: not a file, or its filesystem cannot be read).
    public static func read(storePath path: String) -> StoreDisk? {
        var bytes = 0
        for suffix in ["", "-wal", "-shm"] {
            var info = stat()
            if stat(path + suffix, &info) == 0 { bytes = bytes.addingReportingOverflow(Int(info.st_size)).partialValue }
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        var fs = statvfs()
        guard statvfs(directory, &fs) == 0 else { return nil }
        let block = UInt64(fs.f_frsize == 0 ? fs.f_bsize : fs.f_frsize)
        func clamp(_ blocks: UInt64) -> Int {
            let (product, overflow) = blocks.multipliedReportingOverflow(by: block)
            return overflow || product > UInt64(Int.max) ? .max : Int(product)
        }
        return StoreDisk(storeBytes: bytes, freeBytes: clamp(UInt64(fs.f_bavail)), totalBytes: clamp(UInt64(fs.f_blocks)))
    }

    /// Seconds until the free space is used up at `bytesPerSecond` (`nil`: not filling,
    /// or the rate is not a finite number).
    public func secondsUntilFull(growingBy bytesPerSecond: Double) -> Double? {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return nil }
        let seconds = Double(freeBytes) / bytesPerSecond
        return seconds.isFinite ? seconds : nil
    }

    /// Below this share of the filesystem free, or this long before it is full at the
    /// current inflow, the console warns.
    public static let lowShare = 0.05
    public static let warnAhead: Double = 3600
}

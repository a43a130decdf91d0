#if canImport(Glibc)
import Glibc
#endif

/// A file's device and inode: what every path to one file (a symlink, a hard link, a bind
/// mount of its folder) has in common, and what a file made anew at the same path does not.
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    /// `st_dev`.
    public var device: UInt64
    /// `st_ino`.
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The file at `path` (symlinks followed), or `nil` when there is none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The file open as `descriptor`.
    init?(descriptor: CInt) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Whether `descriptor` is open on a regular file.
    static func isRegularFile(_ descriptor: CInt) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// How `/proc/locks` names the file: `MAJOR:MINOR:INODE`, the device's numbers in hex
    /// (at least two digits), the inode in decimal, as the kernel prints them.
    var procLocksKey: String {
        // glibc's gnu_dev_major and gnu_dev_minor.
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return digits.count < 2 ? "0" + digits : digits
        }
        return "\(hex(major)):\(hex(minor)):\(inode)"
    }

    public var description: String { "device \(device) inode \(inode)" }
}

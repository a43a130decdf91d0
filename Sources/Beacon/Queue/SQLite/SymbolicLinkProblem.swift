#if canImport(Glibc)
import Glibc
#endif

/// Why a store's path names no file though something is there: a loop of symbolic links,
/// or a link to nothing. Said as it is, not as "does not exist" nor SQLite's bare "unable
/// to open database file".
public enum SymbolicLinkProblem {
    /// The reason, or `nil` when `path` is no link, or a link that leads to a file (or,
    /// with `creating`, to a file that may be created: its target is where a new store goes).
    public static func of(_ path: String, creating: Bool = false) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
        var target = stat()
        guard stat(path, &target) != 0 else { return nil }
        switch errno {
        case ELOOP: return "\(path) is a loop of symbolic links; make it a store file or a link to one"
        case ENOENT where creating: return nil
        case ENOENT: return "\(path) is a symbolic link to \(linkTarget(path) ?? "a file"), which does not exist"
        default: return "\(path) is a symbolic link that cannot be followed: \(String(cString: strerror(errno)))"
        }
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink(path, &buffer, 4096)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

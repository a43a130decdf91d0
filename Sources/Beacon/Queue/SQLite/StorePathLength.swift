import Foundation

/// How long a store's path may be.
///
/// SQLite's unix VFS turns every path it opens into an absolute one in a buffer of 512
/// bytes (`MAX_PATHNAME`), which must also hold the longest suffix it adds for a
/// side file (`-journal`): a store at a longer path fails to open with "unable to open
/// database file", whatever the file system allows. Measured on this machine's SQLite:
/// 504 bytes open, 505 do not.
public enum StorePathLength {
    /// The longest absolute path, in bytes of UTF-8, SQLite opens a store at.
    public static let maxBytes = 504

    /// `path` made absolute against the working directory, as SQLite's VFS does.
    public static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Why SQLite cannot open a store at `path`, when the reason is its length; `nil`
    /// when the path is short enough.
    public static func problem(_ path: String) -> String? {
        let length = absolute(path).utf8.count
        guard length > maxBytes else { return nil }
        let made = path.hasPrefix("/") ? "" : " once made absolute"
        return "the store's path is \(length) bytes long\(made); SQLite opens a store at a path of at most "
            + "\(maxBytes) bytes: choose a shorter path"
    }
}

import Beacon
import Foundation

/// Why a `--db` path cannot hold a store, found on the file system, so that the message
/// names the path and the reason instead of SQLite's "unable to open database file".
enum StorePath {
    /// The reason `path` cannot be opened or created as a store, or `nil` when none is
    /// visible (the store may still fail to open for SQLite's own reasons).
    static func problem(_ path: String) -> String? {
        StorePathLength.problem(path) ?? fileProblem(path)
    }

    /// The reason `path` cannot be opened or created as a file: the checks of
    /// ``problem(_:)`` without SQLite's limit on a path's length, for a file SQLite does
    /// not open (an export).
    static func fileProblem(_ path: String) -> String? {
        if let link = SymbolicLinkProblem.of(path, creating: true) { return link }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "\(path) is a directory; give a file path" }
            if !manager.isReadableFile(atPath: path) { return "\(path) is not readable (permission denied)" }
            if !manager.isWritableFile(atPath: path) { return "\(path) is not writable (permission denied)" }
            return nil
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if let unreachable = unreachable(directory) { return unreachable }
        if !manager.fileExists(atPath: directory, isDirectory: &isDirectory) {
            return "the directory \(directory) does not exist; create it or choose another path"
        }
        if !isDirectory.boolValue { return "\(directory) is not a directory" }
        if !manager.isWritableFile(atPath: directory) {
            return "cannot create \(path): the directory \(directory) is not writable (permission denied)"
        }
        return nil
    }

    /// Why `directory` cannot be looked at, for the reasons "does not exist" would
    /// misname: a name past the file system's limit, a file where a folder should be, a
    /// folder that may not be searched, a loop of links.
    private static func unreachable(_ directory: String) -> String? {
        var info = stat()
        guard stat(directory, &info) != 0 else { return nil }
        switch errno {
        case ENAMETOOLONG: return "a name in the directory \(directory) is longer than the file system allows"
        case ENOTDIR: return "a part of the directory \(directory) is a file, not a directory"
        case EACCES: return "the directory \(directory) cannot be reached (permission denied on a directory above it)"
        case ELOOP: return "the directory \(directory) is behind a loop of symbolic links"
        default: return nil
        }
    }

    /// A one-line refusal for a store at `path` that failed to open with `error`.
    static func openFailure(_ path: String, _ error: any Error) -> String {
        if let problem = problem(path) { return "cannot open the store \(path): \(problem)" }
        let text = "\(error)"
        return text.contains(path) ? text : "cannot open the store \(path): \(text)"
    }
}

extension StorageError {
    /// As ``cli``, with the path and the reason named when the file system shows one.
    func cli(path: String) -> CLIError {
        var result = cli
        result.message = StorePath.openFailure(path, self)
        return result
    }
}

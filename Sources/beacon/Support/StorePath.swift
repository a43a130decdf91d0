import Beacon
import Foundation

/// Why a `--db` path cannot hold a store, found on the file system, so that the message
/// names the path and the reason instead of SQLite's "unable to open database file".
enum StorePath {
    /// The reason `path` cannot be opened or created as a store, or `nil` when none is
    /// visible (the store may still fail to open for SQLite's own reasons).
    static func problem(_ path: String) -> String? {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "\(path) is a directory; give a file path" }
            if !manager.isReadableFile(atPath: path) { return "\(path) is not readable (permission denied)" }
            if !manager.isWritableFile(atPath: path) { return "\(path) is not writable (permission denied)" }
            return nil
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !manager.fileExists(atPath: directory, isDirectory: &isDirectory) {
            return "the directory \(directory) does not exist; create it or choose another path"
        }
        if !isDirectory.boolValue { return "\(directory) is not a directory" }
        if !manager.isWritableFile(atPath: directory) {
            return "cannot create \(path): the directory \(directory) is not writable (permission denied)"
        }
        return nil
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

import Foundation
import Logging

/// Where the dashboard commands (`demo`, `monitor`) send swift-log while the screen is
/// up: never stdout or stderr, which share the terminal with the dashboard.
enum DashboardLogging {
    /// Sends every logger created from now on to `path` (appending, created if missing)
    /// at `level` and above. Bootstraps swift-log, so call it once per process, before
    /// creating the engine or the collector.
    static func bootstrap(toFile path: String, level: Logger.Level) throws(CLIError) {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) || manager.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path)
        else {
            throw .runtime("cannot write the log file \(path); check the directory's permissions")
        }
        handle.seekToEndOfFile()
        let sink = LogFileSink(handle: handle)
        LoggingSystem.bootstrap { label in
            var handler = FileLogHandler(label: label, sink: sink)
            handler.logLevel = level
            return handler
        }
    }
}

/// One open log file shared by every handler. Each record is a single `write` call on
/// a file opened for appending, so records from several threads do not interleave.
final class LogFileSink: Sendable {
    // FileHandle is Sendable; each write is one system call.
    private let handle: FileHandle

    init(handle: FileHandle) {
        self.handle = handle
    }

    func write(_ line: String) {
        handle.write(Data(line.utf8))
    }
}

/// A swift-log handler writing `time level label: message metadata` lines to a file.
struct FileLogHandler: LogHandler {
    let label: String
    let sink: LogFileSink
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let details = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.write("\(Date().ISO8601Format()) \(event.level) \(label): \(event.message)\(details)\n")
    }
}

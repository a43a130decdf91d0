import Logging

/// A log handler that writes each line (level, message, metadata) to ``LogLines``.
///
/// ```swift
/// let lines = LogLines()
/// let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
/// ```
public struct CapturingLogHandler: LogHandler {
    public let lines: LogLines
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(lines: LogLines) {
        self.lines = lines
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        lines.add("\(level) \(message) \(metadata.map { "\($0)" } ?? "")")
    }
}

import Synchronization

/// The lines a ``CapturingLogHandler`` received, in order: for tests of what a component
/// logs (and how often).
public final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func add(_ line: String) { lines.withLock { $0.append(line) } }

    /// Every line so far: the level, the message, then the metadata.
    public var all: [String] { lines.withLock { $0 } }
}

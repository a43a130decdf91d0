/// The keys of the remote-config feed's `settings` object that engines understand: the
/// collector serves them, the engine applies them. Part of the wire contract.
///
/// ```json
/// {"settings": {"batchSize": 50, "flushIntervalSeconds": 5}, "deleted": ["sampling"],
///  "version_token": "3"}
/// ```
public enum RemoteConfigKey: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Events per batch at most (an integer ≥ 1).
    case batchSize
    /// Flush when this many events are queued (an integer ≥ 1).
    case flushAt
    /// Flush at least this often, in seconds (a number above 0).
    case flushIntervalSeconds
    /// Bytes per batch at most (an integer ≥ 1024).
    case maxBatchBytes
    /// Bytes per event at most (an integer ≥ 1).
    case maxEventBytes
    /// Event names dropped before queueing (an array of strings).
    case blocklist
    /// Share of events kept (0...1), by event name (an object).
    case sampling

    /// Every key, by name.
    public static let names: Set<String> = Set(allCases.map(\.rawValue))

    /// Orders keys by name.
    public static func < (lhs: RemoteConfigKey, rhs: RemoteConfigKey) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Wire-format limits shared by the engine and the collector.
public enum WireLimits {
    /// The largest event the collector accepts by default: 32 KB (Segment's limit).
    public static let maxEventBytes = 32 * 1024
    /// The largest request the collector accepts by default: 500 KB (Segment's limit).
    public static let maxBatchBytes = 500 * 1024
}

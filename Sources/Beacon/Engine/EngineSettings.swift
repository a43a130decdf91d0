import BeaconWire
import Synchronization

/// The settings an engine reads on every decision, changeable while it runs (from the
/// dashboard, the API or remote configuration).
public struct EngineSettings: Sendable, Hashable {
    /// When to send. Default ``FlushPolicy/default`` (100 events or 5 s).
    public var policy: FlushPolicy = .default
    /// Events per batch at most. Default 100.
    public var batchSize: Int = 100
    /// Bytes of event JSON per batch at most. Default 500 KB (the collector's limit).
    public var maxBatchBytes: Int = WireLimits.maxBatchBytes
    /// Whether sending is switched off (events keep queueing). Default `false`.
    public var isOffline = false

    public init(policy: FlushPolicy = .default, batchSize: Int = 100, maxBatchBytes: Int = WireLimits.maxBatchBytes, isOffline: Bool = false) {
        self.policy = policy
        self.batchSize = batchSize
        self.maxBatchBytes = maxBatchBytes
        self.isOffline = isOffline
    }
}

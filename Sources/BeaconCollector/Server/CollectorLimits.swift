import BeaconWire

/// Limits the collector enforces on ingest requests.
public struct CollectorLimits: Sendable, Hashable, Codable {
    /// The largest event, in bytes of its JSON (default 32 KB, ``WireLimits/maxEventBytes``).
    public var maxEventBytes: Int
    /// The largest request body, in bytes, before and after decompression
    /// (default 500 KB, ``WireLimits/maxBatchBytes``).
    public var maxRequestBytes: Int
    /// The most events accepted in one batch, or `nil` for no count limit.
    public var maxEventsPerBatch: Int?

    /// Creates limits; the defaults are Segment's.
    public init(
        maxEventBytes: Int = WireLimits.maxEventBytes,
        maxRequestBytes: Int = WireLimits.maxBatchBytes,
        maxEventsPerBatch: Int? = nil
    ) {
        self.maxEventBytes = maxEventBytes
        self.maxRequestBytes = maxRequestBytes
        self.maxEventsPerBatch = maxEventsPerBatch
    }
}

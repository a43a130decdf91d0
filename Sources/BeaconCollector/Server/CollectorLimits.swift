import BeaconWire

/// Limits the collector enforces on ingest requests and on connections.
///
/// Every limit has a default, and a `beacon collector` flag:
///
/// | limit | default | flag |
/// |---|---|---|
/// | ``maxEventBytes`` | 32 KB | `--max-event-bytes` |
/// | ``maxRequestBytes`` | 500 KB | `--max-request-bytes` |
/// | ``maxEventsPerBatch`` | 10,000 | `--max-events` |
/// | ``idleTimeout`` | 30 s | `--idle-timeout` |
/// | ``bodyReadTimeout`` | 60 s | `--body-timeout` |
/// | ``maxConnections`` | 1,024 | `--max-connections` |
public struct CollectorLimits: Sendable, Hashable, Codable {
    /// The default of ``maxEventsPerBatch``: more than a 500 KB body of the smallest valid
    /// events holds, so only batches of non-events (`[1,1,…]`) or a raised byte limit reach it.
    public static let defaultMaxEventsPerBatch = 10_000
    /// The default of ``idleTimeout``.
    public static let defaultIdleTimeout: Duration = .seconds(30)
    /// The default of ``bodyReadTimeout``.
    public static let defaultBodyReadTimeout: Duration = .seconds(60)
    /// The default of ``maxConnections``.
    public static let defaultMaxConnections = 1_024

    /// The largest event, in bytes of its JSON (default 32 KB, ``WireLimits/maxEventBytes``).
    public var maxEventBytes: Int
    /// The largest request body, in bytes, before and after decompression
    /// (default 500 KB, ``WireLimits/maxBatchBytes``).
    public var maxRequestBytes: Int
    /// The most elements accepted in one batch (default ``defaultMaxEventsPerBatch``), or
    /// `nil` for no count limit. A batch with more is refused with 413 `too_many_events`
    /// before any element is checked; the parser stops keeping elements past the limit.
    public var maxEventsPerBatch: Int?
    /// How long a connection may stay open without a request part arriving (headers not
    /// completed, or nothing sent after an answer) before the collector closes it.
    public var idleTimeout: Duration
    /// How long the body of one request may take to arrive, from its headers to its last
    /// byte. A body still arriving then is answered 408 `body_timeout` and the connection closed.
    public var bodyReadTimeout: Duration
    /// The most connections open at once; one more is answered 503 `too_many_connections`
    /// (with `Retry-After`) and closed.
    public var maxConnections: Int

    /// Creates limits; the byte defaults are Segment's.
    public init(
        maxEventBytes: Int = WireLimits.maxEventBytes,
        maxRequestBytes: Int = WireLimits.maxBatchBytes,
        maxEventsPerBatch: Int? = CollectorLimits.defaultMaxEventsPerBatch,
        idleTimeout: Duration = CollectorLimits.defaultIdleTimeout,
        bodyReadTimeout: Duration = CollectorLimits.defaultBodyReadTimeout,
        maxConnections: Int = CollectorLimits.defaultMaxConnections
    ) {
        self.maxEventBytes = maxEventBytes
        self.maxRequestBytes = maxRequestBytes
        self.maxEventsPerBatch = maxEventsPerBatch
        self.idleTimeout = idleTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.maxConnections = maxConnections
    }
}

import BeaconWire

/// Everything a ``Collector`` needs to start: where to listen, where to store, whom to
/// accept, how much to accept, and which faults to inject.
///
/// ```swift
/// var configuration = CollectorConfiguration(port: 0)       // a free port on 127.0.0.1
/// configuration.writeKeys = ["abc123"]
/// configuration.faultPlan = .flaky
/// let collector = try Collector(configuration: configuration)
/// ```
public struct CollectorConfiguration: Sendable, Hashable {
    /// The address to bind; loopback by default.
    public var host: String
    /// The TCP port to bind; `0` asks the system for a free one (read it with ``Collector/port``).
    public var port: Int
    /// The SQLite file that stores events, or `nil` for an in-memory database (unless ``postgres`` is set).
    public var databasePath: String?
    /// Accepted write keys. Empty accepts any key or none.
    public var writeKeys: Set<String>
    /// Size and count limits applied to every ingest request.
    public var limits: CollectorLimits
    /// Faults injected from the first request on; change it at runtime with ``Collector/setFaultPlan(_:)``.
    public var faultPlan: FaultPlan
    /// Seed of the random draws that decide which requests get a fault (same seed, same sequence).
    public var seed: UInt64
    /// How many recent requests ``Collector/requestLog()`` keeps.
    public var requestLogCapacity: Int
    /// A JSON file `{"settings": {...}}` served as the remote-config feed at
    /// `GET /v1/config?since=TOKEN` (re-read when it changes); `nil` serves no feed.
    public var configFeedPath: String? = nil
    /// A PostgreSQL database shared with other collectors; when set it is used instead of
    /// ``databasePath``.
    public var postgres: PostgresStoreConfiguration? = nil
    /// Whether `/admin/faults` is served (to loopback peers). `beacon agent` turns it off:
    /// a production ingest takes no injected faults.
    public var servesFaultAdmin = true
    /// The prefix of every metric at `GET /metrics` (default ``defaultMetricsPrefix``);
    /// `beacon agent` names its ingest's `beacon_agent_ingest`.
    public var metricsPrefix = CollectorConfiguration.defaultMetricsPrefix
    /// Whether `/metrics` carries the database's shared totals (`…_store_events`,
    /// `…_store_batches`, `…_store_up`). `beacon agent` turns it off: its ingest stores into
    /// the engine's queue, whose depth the engine's own metrics report.
    public var exportsStoreTotals = true
    /// On graceful shutdown, how much longer the body of a request still arriving may take
    /// (at most ``CollectorLimits/bodyReadTimeout`` in all): past it the request is
    /// answered 408 `body_timeout` and its connection closed, so a stalled upload cannot
    /// hold the shutdown. Requests whose body has arrived are answered as usual. Default 5 s.
    public var shutdownBodyGrace: Duration = .seconds(5)

    /// `beacon_collector`.
    public static let defaultMetricsPrefix = "beacon_collector"

    /// Creates a configuration; every parameter has a default suited to tests and demos.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        databasePath: String? = nil,
        writeKeys: Set<String> = [],
        limits: CollectorLimits = CollectorLimits(),
        faultPlan: FaultPlan = .none,
        seed: UInt64 = 0x5EED,
        requestLogCapacity: Int = 1024
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.writeKeys = writeKeys
        self.limits = limits
        self.faultPlan = faultPlan
        self.seed = seed
        self.requestLogCapacity = requestLogCapacity
    }
}

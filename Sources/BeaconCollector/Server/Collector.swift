import CoreMetrics
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Beacon's HTTP collector: a Segment-compatible ingest server that stores each event
/// once in SQLite, injects faults on demand and reports what it saw.
///
/// Run it as a swift-service-lifecycle `Service` (it stops on graceful shutdown or task
/// cancellation), and read the port it bound with ``port``:
///
/// ```swift
/// let collector = try Collector(configuration: CollectorConfiguration(port: 0))
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { try await collector.run() }
///     let port = try await collector.port          // waits until the server listens
///     // POST http://127.0.0.1:\(port)/v1/batch ...
///     group.cancelAll()
/// }
/// ```
///
/// Routes: `POST /v1/batch` (alias `/v1/b`), `POST /v1/track` (and `/v1/identify`,
/// `/v1/page`, `/v1/screen`, `/v1/group`, `/v1/alias`: one event each), `GET /health`,
/// `GET /v1/stats` (``CollectorStats`` as JSON), `GET /metrics` (Prometheus text),
/// `GET`/`PUT /admin/faults` (``FaultPlan`` as JSON, loopback peers only). Every refusal
/// is a JSON body `{"error":"<code>","message":"<problem and fix>"}`; a batch with invalid
/// events stores nothing and lists them (see ``EventRejection``).
public final class Collector: Service, Sendable {
    /// The configuration the collector was created with.
    public let configuration: CollectorConfiguration
    private let core: CollectorCore
    private let configFeed: ConfigFeed?
    private let binding = Mutex(BindingState())
    private let connections: ConnectionGate

    private struct BindingState {
        var port: Int?
        var ended = false
        var waiters: [CheckedContinuation<Int, any Error>] = []
    }

    /// Opens the store (creating the SQLite file and its table if needed) and prepares
    /// the server; nothing listens until ``run()``.
    ///
    /// - Throws: ``CollectorSetupError`` for an invalid fault plan or limit; GRDB's
    ///   `DatabaseError` when the database cannot be opened.
    public convenience init(configuration: CollectorConfiguration, logger: Logger = Logger(label: "beacon.collector")) throws {
        try Self.check(configuration)
        let store: any CollectorStore
        if let postgres = configuration.postgres {
            store = try PostgresEventStore(configuration: postgres, logger: logger)
            logger.info("collector stores to PostgreSQL", metadata: ["store": "\(postgres)"])
        } else {
            store = try EventStore(path: configuration.databasePath)
        }
        try self.init(configuration: configuration, store: store, logger: logger)
    }

    /// Prepares a server that stores into `store` (``CollectorConfiguration/databasePath``
    /// and ``CollectorConfiguration/postgres`` are not used): every check and answer is the
    /// collector's, and a batch is answered 200 only once `store` returned from
    /// ``CollectorStore/insert(_:)``. Nothing listens until ``run()``.
    ///
    /// - Throws: ``CollectorSetupError`` for an invalid fault plan, limit or config feed.
    public init(
        configuration: CollectorConfiguration, store: any CollectorStore, logger: Logger = Logger(label: "beacon.collector")
    ) throws {
        try Self.check(configuration)
        self.configuration = configuration
        connections = ConnectionGate(limit: configuration.limits.maxConnections)
        configFeed = try configuration.configFeedPath.map { path throws(CollectorSetupError) in try ConfigFeed(path: path, logger: logger) }
        core = CollectorCore(configuration: configuration, store: store, logger: logger)
    }

    private static func check(_ configuration: CollectorConfiguration) throws(CollectorSetupError) {
        do {
            try configuration.faultPlan.validate()
        } catch {
            throw CollectorSetupError(message: error.message)
        }
        let limits = configuration.limits
        guard limits.maxEventBytes > 0, limits.maxRequestBytes > 0, (limits.maxEventsPerBatch ?? 1) > 0 else {
            throw CollectorSetupError(message: "Collector limits must be positive; check maxEventBytes, maxRequestBytes and maxEventsPerBatch.")
        }
        for (name, timeout) in [("idleTimeout", limits.idleTimeout), ("bodyReadTimeout", limits.bodyReadTimeout)] {
            guard timeout > .zero, timeout <= .maximumFromOutside else {
                throw CollectorSetupError(message: "Collector \(name) must be more than 0 and at most 10 years.")
            }
        }
        guard limits.maxConnections > 0 else {
            throw CollectorSetupError(message: "Collector maxConnections must be 1 or more.")
        }
        guard (0...65_535).contains(configuration.port) else {
            throw CollectorSetupError(message: "Port \(configuration.port) is out of range; use 0 (any free port) to 65535.")
        }
    }

    /// Serves HTTP until graceful shutdown or cancellation, then lets in-flight requests
    /// finish (hanging ones are released at once, and a body still arriving gets
    /// ``CollectorConfiguration/shutdownBodyGrace`` more at most).
    ///
    /// - Throws: the bind error when the address is taken or invalid.
    public func run() async throws {
        let application = Application(
            responder: CollectorResponder(core: core, seed: configuration.seed, configFeed: configFeed),
            server: HTTPServerBuilder {
                [limits = configuration.limits, grace = configuration.shutdownBodyGrace, connections] responder in
                CollectorChannel(responder: responder, limits: limits, shutdownBodyGrace: grace, gate: connections)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { [self] channel in
                self.didBind(port: channel.localAddress?.port ?? configuration.port)
            },
            logger: core.logger
        )
        defer { didEnd() }
        try await withThrowingTaskGroup(of: Void.self) { [core] group in
            // The store's background work (PostgreSQL's connection pool) lives as long as the server.
            group.addTask { await core.store.run() }
            defer { group.cancelAll() }
            try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    try await application.run()
                } onGracefulShutdown: {
                    core.isStopping = true
                }
            } onCancel: {
                core.isStopping = true
            }
        }
    }

    /// The port the server listens on; waits until it is bound.
    ///
    /// - Throws: ``CollectorSetupError`` if ``run()`` ends before binding (e.g. the port is taken).
    public var port: Int {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let result: Result<Int, any Error>? = binding.withLock { state in
                    if let port = state.port { return .success(port) }
                    if state.ended {
                        return .failure(CollectorSetupError(message: "The collector stopped before it could listen on \(configuration.host):\(configuration.port); check that the address is free."))
                    }
                    state.waiters.append(continuation)
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }

    /// The live fault plan.
    public func faultPlan() -> FaultPlan {
        core.faultPlan
    }

    /// Replaces the fault plan; it applies from the next request on.
    ///
    /// - Throws: ``FaultPlanError`` when a share or duration is out of range.
    public func setFaultPlan(_ plan: FaultPlan) throws(FaultPlanError) {
        try plan.validate()
        core.faultPlan = plan
        core.logger.info("fault plan changed", metadata: ["preset": "\(plan.presetName)"])
    }

    /// Counters and rates since start: the same value `GET /v1/stats` answers.
    public func stats() -> CollectorStats {
        core.stats.snapshot()
    }

    /// What the store's database holds, shared by every collector writing to it (the
    /// `shared` part of `GET /v1/stats`), read now from its counter table. Over PostgreSQL
    /// it needs ``run()`` to be running.
    ///
    /// - Throws: when the database cannot be reached.
    public func sharedTotals() async throws -> StoreTotals {
        try await core.store.totals()
    }

    /// The most recent requests (up to ``CollectorConfiguration/requestLogCapacity``), oldest first.
    public func requestLog() -> [RequestLogEntry] {
        core.stats.log()
    }

    /// The number of distinct events stored (by every collector sharing the database).
    /// Over PostgreSQL it needs ``run()`` to be running.
    public func storedCount() async throws -> Int {
        try await core.store.count()
    }

    /// The stored `messageId`s, in the order they were first stored.
    public func storedMessageIds() async throws -> [String] {
        try await core.store.messageIds()
    }

    /// The stored events with their original JSON, in the order they were first stored.
    public func storedEvents(limit: Int = 10_000) async throws -> [StoredEvent] {
        try await core.store.events(limit: limit)
    }

    /// The connections open now (at most ``CollectorLimits/maxConnections``).
    public func openConnections() -> Int {
        connections.count
    }

    /// The metrics in Prometheus text format: the same text `GET /metrics` answers.
    public func metricsText() -> String {
        core.metrics.prometheusText()
    }

    /// Gives the `# HELP` text, by full name, of metrics recorded through
    /// ``metricsFactory`` by others (`beacon agent`'s engine metrics).
    public func describeMetrics(_ help: [String: String]) {
        core.metrics.describe(help)
    }

    /// A swift-metrics factory over this collector's own Prometheus registry: what is
    /// recorded through it is served at `GET /metrics` with the collector's metrics
    /// (`beacon agent` serves its engine's metrics this way).
    public var metricsFactory: any MetricsFactory {
        core.metrics.factory
    }

    private func didBind(port: Int) {
        let waiters = binding.withLock { state in
            state.port = port
            defer { state.waiters = [] }
            return state.waiters
        }
        core.logger.info("collector listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
        for waiter in waiters { waiter.resume(returning: port) }
    }

    private func didEnd() {
        let waiters = binding.withLock { state in
            state.ended = true
            defer { state.waiters = [] }
            return state.port == nil ? state.waiters : []
        }
        let error = CollectorSetupError(message: "The collector stopped before it could listen on \(configuration.host):\(configuration.port); check that the address is free.")
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}

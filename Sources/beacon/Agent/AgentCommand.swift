import ArgumentParser
import Beacon
import BeaconCollector
import BeaconDashboard
import Foundation
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// `beacon agent`: an engine run headless as a service, taking Segment-format events from
/// local programs in any language and forwarding them with the whole delivery machinery.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run an engine headless: a local Segment-compatible ingest in front of a durable queue.",
        discussion: """
            Accepts POST /v1/batch (alias /v1/b), /v1/track, /v1/identify, /v1/page, /v1/screen, \
            /v1/group and /v1/alias on --listen, checks each request as 'beacon collector' does \
            (gzip, 500 KB per request, 32 KB per event, a 400 listing each invalid event), and \
            answers 200 only once the events are committed to --db, each with its own messageId \
            and JSON. A store that fails or a full queue is answered 503 with Retry-After. Events \
            go to every --endpoint with batching, retries and dead letters. Also serves GET \
            /metrics (Prometheus text: the engine's per-destination metrics and the ingest's), \
            GET /health and GET /v1/stats, and the control channel at DB.control ('beacon ctl', \
            'beacon monitor'). When ready, prints `listening on http://HOST:PORT` on stdout; logs \
            go to stderr. SIGTERM or SIGINT stops the ingest (a request body still arriving gets \
            5 s more), then drains for at most 5 s, a drain under way included (a batch still in \
            flight at 5 s is cancelled); what is left stays queued for the next start. Exit 0 \
            after a clean stop.
            """)

    @Option(help: "The store (an SQLite file; created when missing).")
    var db: String

    @Option(
        help: ArgumentHelp(
            "Where to send: [NAME=]URL, http://HOST:PORT (repeat for several destinations).",
            discussion: "Each destination has its own progress, backoff and dead letters. Unnamed ones are 'default', then 'destination-2', ...; name them NAME=URL. file:///PATH (NDJSON) and log: also work."))
    var endpoint: [String] = []

    @Option(
        name: .customLong("write-key"),
        help: "A write key clients must send (HTTP Basic user, or writeKey in the body); repeat for several. Without it any key or none is accepted.")
    var writeKeys: [String] = []

    @Option(help: "The write key sent to the destinations (HTTP Basic auth).")
    var destinationWriteKey: String?

    @Option(help: "Address to listen on, HOST:PORT or [IPv6]:PORT; port 0 picks a free one.")
    var listen = AgentAddress.defaultListen

    @Option(parsing: .unconditional, help: "The flush policy, e.g. 'manual', 'count 50', 'every 5s', 'count 100 or 5s'.")
    var policy: String = FlushPolicy.default.description

    @Option(parsing: .unconditional, help: "Events per batch sent at most (1...10000).")
    var batchSize: Int = 100

    @Option(parsing: .unconditional, help: EngineFlags.maxConcurrentRequestsHelp)
    var maxConcurrentRequests: Int = 1

    @Option(help: DurabilityOption.help)
    var durability: DurabilityOption = .processCrash

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @OptionGroup(title: "Queue bounds")
    var bounds: QueueBoundsOptions

    /// The longest wait for a request's events to be committed before answering 503.
    static let commitTimeout: Duration = .seconds(5)
    /// The bounded drain on SIGTERM or SIGINT.
    static let finalFlushTimeout: Duration = .seconds(5)

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    func validate() throws {
        try EngineFlags.validate(policy: policy, batchSize: batchSize)
        try EngineFlags.validate(maxConcurrentRequests: maxConcurrentRequests)
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("Unknown --log-level '\(logLevel)'; use trace, debug, info, notice, warning, error or critical.")
        }
        for key in writeKeys + (destinationWriteKey.map { [$0] } ?? []) where key.isEmpty || key.contains(where: \.isNewline) {
            throw ValidationError("a write key must not be empty nor hold a line break")
        }
        do {
            _ = try AgentAddress.listen(listen)
            _ = try AgentAddress.endpoints(endpoint)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        func logger(_ label: String) -> Logger {
            var logger = Logger(label: label) { label in StreamLogHandler.standardError(label: label) }
            logger.logLevel = level
            return logger
        }
        let (host, port) = try AgentAddress.listen(listen)
        let flushPolicy = try FlushPolicy(parsing: policy)
        var destinations: [Destination] = []
        for (name, url) in try AgentAddress.endpoints(endpoint) {
            destinations.append(try Destination(
                name: name, sender: try Senders.make(endpoint: url, writeKey: destinationWriteKey),
                maxConcurrentRequests: maxConcurrentRequests))
        }
        if let problem = StorePath.problem(db) { throw CLIError.badInput("--db: cannot open the store \(db): \(problem)") }
        // Before anything else touches the store: one engine serves it.
        let lock = try StoreLock.take(forStore: db, role: "beacon agent")
        var queueConfiguration = SQLiteEventQueue.Configuration()
        queueConfiguration.durability = durability.durability
        bounds.apply(to: &queueConfiguration)
        let queue: SQLiteEventQueue
        do {
            queue = try SQLiteEventQueue(path: db, configuration: queueConfiguration, logger: logger("beacon.queue"))
        } catch {
            throw error.cli(path: db)
        }
        let agentLogger = logger("beacon.agent")
        let forgotten = queue.depth.destinations.keys.filter { name in !destinations.contains { $0.name == name } }
        for name in forgotten.sorted() {
            agentLogger.warning(
                "the store keeps events for a destination this agent does not send to; give it again with --endpoint \(name)=URL",
                metadata: ["destination": "\(name)", "pending": "\(queue.depth.pending(for: name))"])
        }
        let engine = BeaconEngine(
            queue: queue, destinations: destinations, settings: EngineSettings(policy: flushPolicy, batchSize: batchSize),
            clock: ContinuousClock(), finalFlushTimeout: Self.finalFlushTimeout, logger: logger("beacon.engine"))
        // At its bound the agent refuses new events (503 queue_full) rather than drop old ones.
        engine.observer.report(.refusedAtBound(refused: 0))
        let fullness = FullnessHook()
        let store = AgentIngestStore(
            tracker: engine.tracker, queue: queue, observer: engine.observer, fullnessChanged: fullness, commitTimeout: Self.commitTimeout,
            logger: agentLogger)
        var ingest = CollectorConfiguration(host: host, port: port, writeKeys: Set(writeKeys))
        ingest.metricsPrefix = "beacon_agent_ingest"
        ingest.exportsStoreTotals = false  // the engine's metrics report the queue
        ingest.limits.maxConnections = DescriptorLimit.connectionCap(ingest.limits.maxConnections, logger: agentLogger)
        ingest.servesFaultAdmin = false
        if writeKeys.isEmpty && !Self.isLoopback(host) {
            agentLogger.warning(
                "listening beyond loopback without a write key: anyone who reaches the port can queue events; give --write-key",
                metadata: ["host": "\(host)"])
        }
        let collector: Collector
        do {
            collector = try Collector(configuration: ingest, store: store, logger: logger("beacon.agent.ingest"))
        } catch {
            throw CLIError.runtime("cannot prepare the agent's ingest: \(error)")
        }
        let metrics = engine.metricsReporter(factory: collector.metricsFactory, logger: logger("beacon.metrics"))
        fullness.set { metrics.recordFullness() }
        collector.describeMetrics(EngineMetrics.help)
        let lockWatch = StoreLockWatch(lock: lock, logger: logger("beacon.lock"))
        let control: ControlServer
        do {
            control = try await engine.serveControl(watch: lockWatch, logger: logger("beacon.control"))
        } catch {
            throw CLIError.runtime("cannot serve the control channel of \(db): \(error)")
        }
        // Stopped in reverse order: the ingest first (in-flight requests finish), then the
        // control channel and the metrics, then the engine's bounded drain.
        let group = ServiceGroup(
            services: [engine, metrics, control, lockWatch, collector],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: agentLogger)
        let names = destinations.map(\.name)
        let path = db
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                tasks.addTask {
                    let bound = try await collector.port
                    let displayHost = host.contains(":") ? "[\(host)]" : host
                    agentLogger.info(
                        "agent ready", metadata: ["store": "\(path)", "destinations": "\(names)"])
                    print("listening on http://\(displayHost):\(bound)")
                    fflush(nil)  // every output stream: Swift 6 refuses the global `stdout`
                }
                try await tasks.waitForAll()
            }
        } catch {
            await control.close()
            throw CLIError.runtime("the agent stopped: \(error)")
        }
        let left = queue.depth.events
        agentLogger.info("agent stopped", metadata: ["queued": "\(left)"])
        withExtendedLifetime(lock) {}  // held to the end
    }
}

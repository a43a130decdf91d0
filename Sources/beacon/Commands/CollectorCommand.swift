import ArgumentParser
import BeaconCollector
import BeaconWire
import Foundation
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `beacon collector`: runs the HTTP collector until SIGINT or SIGTERM.
struct CollectorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collector",
        abstract: "Run the HTTP collector (Segment-compatible /v1/batch) with optional fault injection.",
        discussion: """
            When ready, prints one line to stdout, `listening on http://HOST:PORT`. Port 0 picks a free port.
            Faults can also be changed at runtime (loopback only): curl -X PUT http://HOST:PORT/admin/faults \
            -d '{"preset":"flaky"}', or a plan whose keys are the fault flags' names: failRate, throttleRate, \
            retryAfter, latencyMs, hangRate, hangSeconds, resetRate, maxBatchEvents, down (absent keys: no fault). \
            GET /admin/faults answers the plan in force.
            """
    )

    @Option(help: "Address to bind. (default: 127.0.0.1)")
    var host: String?

    @Option(parsing: .unconditional, help: "Port to bind; 0 picks a free one. (default: 8088)")
    var port: Int?

    @Option(help: "HOST:PORT to bind, as 'beacon agent --listen' takes it (instead of --host and --port).")
    var listen: String?

    @Option(help: "SQLite file for received events (in memory when omitted).")
    var db: String?

    @Option(
        help: ArgumentHelp(
            "PostgreSQL shared by several collectors, postgres://USER:PASS@HOST:PORT/DB (instead of --db).",
            discussion: "Also read from BEACON_COLLECTOR_STORE. The password is never logged."))
    var store: String?

    @Option(parsing: .unconditional, help: "Most PostgreSQL connections this collector opens (with --store).")
    var storePoolSize = PostgresStoreConfiguration.defaultPoolSize

    @Option(name: .customLong("write-key"), help: "Accepted write key (repeat for several; none accepts any).")
    var writeKeys: [String] = []

    @Option(parsing: .unconditional, help: "Largest event in bytes.")
    var maxEventBytes = CollectorLimits().maxEventBytes

    @Option(parsing: .unconditional, help: "Largest request body in bytes, before and after decompression.")
    var maxRequestBytes = CollectorLimits().maxRequestBytes

    @Option(parsing: .unconditional, help: "Most events accepted in one request (413 too_many_events above).")
    var maxEvents = CollectorLimits.defaultMaxEventsPerBatch

    @Option(parsing: .unconditional, help: "Seconds a connection may stay open with no request arriving before it is closed.")
    var idleTimeout = CollectorLimits.defaultIdleTimeout.inSeconds

    @Option(parsing: .unconditional, help: "Seconds a request body may take to arrive after its headers (408 body_timeout past it).")
    var bodyTimeout = CollectorLimits.defaultBodyReadTimeout.inSeconds

    @Option(parsing: .unconditional, help: "Most connections open at once; one more is answered 503 too_many_connections and closed.")
    var maxConnections = CollectorLimits.defaultMaxConnections

    @Option(parsing: .unconditional, help: "Share of batches answered 500 (0...1).")
    var failRate = 0.0

    @Option(parsing: .unconditional, help: "Share of batches answered 429 with Retry-After (0...1).")
    var throttleRate = 0.0

    @Option(parsing: .unconditional, help: "Retry-After value of injected 429s, in seconds.")
    var retryAfter = 1

    @Option(parsing: .unconditional, help: "Delay added to every batch, in milliseconds.")
    var latencyMs = 0

    @Option(parsing: .unconditional, help: "Share of batches held past the client's timeout (0...1).")
    var hangRate = 0.0

    @Option(parsing: .unconditional, help: "How long a hanging batch is held, in seconds.")
    var hangSeconds = 30.0

    @Option(parsing: .unconditional, help: "Share of batches whose connection is reset without a response (0...1).")
    var resetRate = 0.0

    @Option(parsing: .unconditional, help: "Answer 413 to batches with more events than this (fault injection).")
    var maxBatchEvents: Int?

    @Flag(help: "Start down: 503 for everything except /health and /admin.")
    var down = false

    @Option(help: "Named fault preset to start from: none, flaky, slow, down (other fault flags are ignored).")
    var faults: String?

    @Option(parsing: .unconditional, help: "Seed of the fault draws (same seed, same sequence).")
    var seed: UInt64 = 0x5EED

    @Option(help: "JSON file {\"settings\": {...}} served as the remote-config feed at GET /v1/config?since=TOKEN (re-read when it changes).")
    var config: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        if let faults, FaultPlan.preset(named: faults) == nil {
            throw ValidationError("Unknown fault preset '\(faults)'; use none, flaky, slow or down.")
        }
        do {
            try faultPlan.validate()
        } catch {
            throw ValidationError(Self.namingFlags(error.message))
        }
        _ = try address()
        guard Self.eventBytes.contains(maxEventBytes) else {
            throw ValidationError("--max-event-bytes must be 1...\(Self.eventBytes.upperBound), not \(maxEventBytes).")
        }
        guard Self.requestBytes.contains(maxRequestBytes) else {
            throw ValidationError("--max-request-bytes must be 1...\(Self.requestBytes.upperBound), not \(maxRequestBytes).")
        }
        guard Self.eventCounts.contains(maxEvents) else {
            throw ValidationError("--max-events must be 1...\(Self.eventCounts.upperBound), not \(maxEvents).")
        }
        if let maxBatchEvents, !Self.eventCounts.contains(maxBatchEvents) {
            throw ValidationError("--max-batch-events must be 1...\(Self.eventCounts.upperBound), not \(maxBatchEvents).")
        }
        guard Self.connectionCounts.contains(maxConnections) else {
            throw ValidationError("--max-connections must be 1...\(Self.connectionCounts.upperBound), not \(maxConnections).")
        }
        for (flag, seconds) in [("--idle-timeout", idleTimeout), ("--body-timeout", bodyTimeout)] {
            guard let duration = Duration(checkedSeconds: seconds), duration > .zero else {
                throw ValidationError("\(flag) \(seconds) is not a number of seconds above 0 (at most 10 years).")
            }
        }
        if let storeAddress {
            guard db == nil else {
                throw ValidationError("Use either --db FILE (SQLite) or --store postgres://… (PostgreSQL), not both.")
            }
            do {
                _ = try PostgresStoreConfiguration(url: storeAddress, poolSize: storePoolSize)
            } catch {
                throw ValidationError("--store: \(error.message)")
            }
        }
        guard Self.poolSizes.contains(storePoolSize) else {
            throw ValidationError("--store-pool-size must be 1...\(Self.poolSizes.upperBound), not \(storePoolSize).")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("Unknown --log-level '\(logLevel)'; use trace, debug, info, notice, warning, error or critical.")
        }
    }

    /// The range `--max-event-bytes` accepts (16 MiB at most).
    static let eventBytes = 1...16 * 1_048_576
    /// The range `--max-request-bytes` accepts (256 MiB at most).
    static let requestBytes = 1...256 * 1_048_576
    /// The range `--max-events` and `--max-batch-events` accept.
    static let eventCounts = 1...1_000_000
    /// The range `--store-pool-size` accepts.
    static let poolSizes = 1...1_000

    /// `--store`, or else (without `--db`) `BEACON_COLLECTOR_STORE` when set and not empty.
    var storeAddress: String? {
        if let store { return store }
        guard db == nil, let value = ProcessInfo.processInfo.environment["BEACON_COLLECTOR_STORE"], !value.isEmpty else { return nil }
        return value
    }

    /// The range `--max-connections` accepts.
    static let connectionCounts = 1...1_000_000

    /// A fault plan's message with its field names as this command's flags.
    static func namingFlags(_ message: String) -> String {
        let flags = [
            ("failRate", "--fail-rate"), ("throttleRate", "--throttle-rate"), ("hangRate", "--hang-rate"),
            ("resetRate", "--reset-rate"), ("retryAfter", "--retry-after"), ("latencyMs", "--latency-ms"),
            ("hangSeconds", "--hang-seconds"), ("maxBatchEvents", "--max-batch-events"),
        ]
        var text = message
        for (field, flag) in flags { text = text.replacingOccurrences(of: field, with: flag) }
        return text
    }

    /// The fault plan the flags describe.
    var faultPlan: FaultPlan {
        if let faults, let preset = FaultPlan.preset(named: faults) { return preset }
        return FaultPlan(
            failRate: failRate, throttleRate: throttleRate, retryAfterSeconds: retryAfter,
            latencyMilliseconds: latencyMs, hangRate: hangRate, hangSeconds: hangSeconds, resetRate: resetRate,
            maxBatchEvents: maxBatchEvents, down: down)
    }

    /// Where to bind: `--listen`, or `--host` and `--port` (their defaults for those not given).
    func address() throws -> (host: String, port: Int) {
        if let listen {
            guard host == nil, port == nil else {
                throw ValidationError("give --listen HOST:PORT, or --host and --port, not both")
            }
            do {
                return try AgentAddress.listen(listen)
            } catch {
                throw ValidationError(error.message)
            }
        }
        let (host, port) = (host ?? "127.0.0.1", port ?? 8088)
        if let problem = HostCheck.problem(host) {
            throw ValidationError("--host \(AgentAddress.shown(host)) \(problem)")
        }
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port \(port) is out of range; use 0 (any free port) to 65535.")
        }
        return (host, port)
    }

    func run() async throws {
        let (host, port) = try address()
        var logger = Logger(label: "beacon.collector") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var configuration = CollectorConfiguration(
            host: host, port: port, databasePath: db, writeKeys: Set(writeKeys),
            limits: CollectorLimits(
                maxEventBytes: maxEventBytes, maxRequestBytes: maxRequestBytes, maxEventsPerBatch: maxEvents,
                idleTimeout: Duration(checkedSeconds: idleTimeout) ?? CollectorLimits.defaultIdleTimeout,
                bodyReadTimeout: Duration(checkedSeconds: bodyTimeout) ?? CollectorLimits.defaultBodyReadTimeout,
                maxConnections: DescriptorLimit.connectionCap(maxConnections, logger: logger)),
            faultPlan: faultPlan, seed: seed)
        configuration.configFeedPath = config
        if let storeAddress {
            do {
                configuration.postgres = try PostgresStoreConfiguration(url: storeAddress, poolSize: storePoolSize)
            } catch {
                throw CLIError.badInput("--store: \(error.message)")
            }
        }
        if let db, let problem = StorePath.problem(db) {
            throw CLIError.badInput("--db: cannot open the collector's store \(db): \(problem)")
        }
        let collector: Collector
        do {
            collector = try Collector(configuration: configuration, logger: logger)
        } catch let error as CollectorSetupError where config != nil {
            throw CLIError.badInput(error.message)  // a missing or malformed --config file is bad input
        } catch where db != nil && "\(error)".contains("SQLite") && !"\(error)".contains(db ?? "") {
            throw CLIError.runtime("cannot open the collector's store \(db ?? ""): \(error)")
        }
        let group = ServiceGroup(services: [collector], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask {
                let port = try await collector.port
                let displayHost = host.contains(":") ? "[\(host)]" : host
                print("listening on http://\(displayHost):\(port)")
                fflush(nil)  // every output stream: Swift 6 refuses the global `stdout`
            }
            try await tasks.waitForAll()
        }
    }
}

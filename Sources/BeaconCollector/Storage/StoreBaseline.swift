import BeaconWire
import Logging

/// The database's own speed for the rows of some `/v1/batch` bodies, with no HTTP, no gzip
/// and no parsing: the baseline `beacon bench ingest` measures the collector against, in
/// the same run and on the same rows.
///
/// ```swift
/// let baseline = try StoreBaseline(bodies: bodies)            // parsed once, untimed
/// let time = try await baseline.insertIntoSQLite(path: file)  // one transaction
/// print(Double(baseline.eventCount) / time.inSeconds, "rows/s")
/// ```
public struct StoreBaseline: Sendable {
    private let batches: [AcceptedBatch]

    /// The events in all the bodies.
    public let eventCount: Int

    /// Parses and checks each body as the collector does (not timed).
    ///
    /// - Throws: ``CollectorSetupError`` naming the first body the collector would refuse.
    public init(bodies: [[UInt8]]) throws(CollectorSetupError) {
        let receivedAt = Timestamp.now().millisecondsSince1970
        var batches: [AcceptedBatch] = []
        batches.reserveCapacity(bodies.count)
        for (index, body) in bodies.enumerated() {
            let parsed: ParsedBody
            do {
                parsed = try BatchParser.parseBatch(body)
            } catch {
                throw CollectorSetupError(message: "Body \(index) is not a batch the collector accepts: \(error.message)")
            }
            guard case .accept(let types, let times) = BatchAdmission.decide(parsed, defaultType: .track, maxEventBytes: CollectorLimits().maxEventBytes)
            else {
                throw CollectorSetupError(message: "Body \(index) holds events the collector would refuse.")
            }
            batches.append(AcceptedBatch(parsed: parsed, types: types, times: times, receivedAtMilliseconds: receivedAt))
        }
        self.batches = batches
        eventCount = batches.reduce(0) { $0 + $1.parsed.items.count }
    }

    /// Opens a fresh collector store at `path` (the collector's schema, WAL) and inserts every
    /// row with the collector's own statements (its multi-row inserts and its counter
    /// update), all in one transaction. Returns the time of that transaction.
    ///
    /// - Throws: when the file cannot be opened, or fewer rows than ``eventCount`` are stored
    ///   (the file was not fresh).
    public func insertIntoSQLite(path: String) async throws -> Duration {
        let store = try EventStore(path: path)
        let start = ContinuousClock.now
        let stored = try await store.insertAll(batches)
        let elapsed = start.duration(to: .now)
        guard stored == eventCount else {
            throw CollectorSetupError(message: "The baseline stored \(stored) of \(eventCount) rows; use a fresh file.")
        }
        return elapsed
    }

    /// Creates the collector's schema in `configuration`'s database (under its `schema`,
    /// which should be fresh), then inserts each batch as one plain multi-row
    /// `INSERT … SELECT FROM UNNEST(…)`, committed on its own, over `connections`
    /// connections at once (each takes the next batch when its last is done). Returns the
    /// time from the first insert to the last commit, and drops the schema afterwards.
    public func insertIntoPostgres(
        _ configuration: PostgresStoreConfiguration, connections: Int, logger: Logger
    ) async throws -> Duration {
        guard connections > 0 else { throw CollectorSetupError(message: "The baseline needs 1 connection or more.") }
        var options = configuration
        options.poolSize = connections
        options.pendingPerConnection = 1
        let store = try PostgresEventStore(configuration: options, logger: logger)
        let batches = self.batches
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            // The schema is the baseline's to drop only once it is known to hold nothing:
            // one that already held events is someone's, and stays as it was.
            var ownsSchema = false
            do {
                let totals = try await store.totals()  // applies the migrations, untimed
                guard totals.events == 0 else {
                    throw CollectorSetupError(message: "The baseline's schema already holds \(totals.events) events; use a fresh one.")
                }
                ownsSchema = true
                let next = IndexDispenser()
                let start = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { workers in
                    for _ in 0..<connections {
                        workers.addTask {
                            while let index = next.take(below: batches.count) { try await store.insertPlain(batches[index]) }
                        }
                    }
                    try await workers.waitForAll()
                }
                let elapsed = start.duration(to: .now)
                let stored = try await store.count()
                guard stored == eventCount else {
                    throw CollectorSetupError(message: "The baseline stored \(stored) of \(eventCount) rows; use a fresh schema.")
                }
                try await store.dropSchema()
                return elapsed
            } catch {
                if ownsSchema {
                    do {
                        try await store.dropSchema()
                    } catch let dropError {
                        // The first error is the one to throw; this one is left in the log.
                        logger.warning("cannot drop the baseline's schema", metadata: [
                            "schema": "\(options.schema ?? "public")", "error": "\(dropError)",
                        ])
                    }
                }
                throw error
            }
        }
    }

    /// Drops `configuration`'s schema and everything in it (`beacon bench ingest` gives each
    /// run a schema of its own and drops it after the run); does nothing without a schema.
    public static func dropPostgresSchema(_ configuration: PostgresStoreConfiguration, logger: Logger) async throws {
        let store = try PostgresEventStore(configuration: configuration, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            try await store.dropSchema()
        }
    }
}

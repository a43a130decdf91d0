import Logging
import PostgresNIO
import Synchronization

/// The collector's events in PostgreSQL, so that several collectors (behind a load
/// balancer) share one table and store each `messageId` once between them.
///
/// **Schema.** `collector_events` has the SQLite store's columns plus `id`, an identity
/// that keeps the arrival order SQLite gets from `rowid`. `message_id` is `text COLLATE "C"`
/// and the primary key: under the "C" collation text compares byte for byte, so NFC and
/// NFD spellings of one id are two events, whatever the database's default collation.
/// `text` rather than `bytea` keeps the table readable in `psql`; the two differences that
/// would matter (a NUL byte, invalid UTF-8) are refused before any event reaches a store.
/// The schema is built by numbered migrations recorded in `collector_schema_version`,
/// applied under an advisory lock so that collectors starting together apply each once.
///
/// **Writes.** A batch is one `INSERT … SELECT … FROM UNNEST(…) ON CONFLICT (message_id)
/// DO NOTHING` with each column sent as one array parameter, in an explicit transaction:
/// the data goes in one round trip, and ``insert(_:)`` returns only after `COMMIT`. The
/// statement counts the rows it inserted, so stored and duplicate counts come from the
/// database even when another collector stores the same batch at the same moment.
///
/// **Back-pressure.** At most ``PostgresStoreConfiguration/poolSize`` connections, at most
/// `poolSize × pendingPerConnection` batches waiting for one, each for at most
/// ``PostgresStoreConfiguration/operationTimeout``. Past either limit, or when the server
/// is down, ``insert(_:)`` throws ``StoreUnavailableError`` (503 with `Retry-After`): the
/// memory a slow database can pin is bounded, and the client keeps the batch. The pool
/// reconnects by itself when the server is back.
final class PostgresEventStore: CollectorStore {
    private let client: PostgresClient
    private let configuration: PostgresStoreConfiguration
    private let logger: Logger
    private let pending = Mutex(0)
    private let migration = Mutex<Task<Void, any Error>?>(nil)

    /// Seconds a client is told to wait when the database cannot take a batch.
    static let retryAfterSeconds = 2

    /// A store over `configuration`; nothing connects until ``run()`` and the first use.
    init(configuration: PostgresStoreConfiguration, logger: Logger) throws(CollectorSetupError) {
        guard configuration.poolSize > 0, configuration.pendingPerConnection > 0 else {
            throw CollectorSetupError(message: "The PostgreSQL pool size and pending batches per connection must be 1 or more.")
        }
        guard configuration.operationTimeout > .zero else {
            throw CollectorSetupError(message: "The PostgreSQL operation timeout must be more than 0.")
        }
        if let schema = configuration.schema, !PostgresStoreConfiguration.isPlainName(schema) {
            throw CollectorSetupError(message: "The store schema must be letters, digits and underscores, starting with a letter.")
        }
        var options = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: .disable)
        options.options.maximumConnections = configuration.poolSize
        options.options.minimumConnections = 0
        options.options.connectTimeout = min(configuration.operationTimeout, .seconds(5))
        if let schema = configuration.schema {
            options.options.additionalStartupParameters = [("search_path", schema)]
        }
        client = PostgresClient(configuration: options, backgroundLogger: logger)
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs the connection pool until cancelled.
    func run() async {
        await client.run()
    }

    func insert(_ batch: AcceptedBatch) async throws -> StoreInsertResult {
        let count = batch.parsed.items.count
        guard count > 0 else { return StoreInsertResult(stored: 0, duplicates: 0) }
        let query = try Self.insertQuery(for: batch)
        let stored = try await guarded { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                var stored: Int64 = 0
                for try await inserted in try await connection.query(query, logger: logger).decode(Int64.self) {
                    stored = inserted
                }
                return stored
            }
        }
        // The statement inserts at most `count` rows: stored is within 0...count.
        let storedCount = Int(clamping: stored)
        return StoreInsertResult(stored: storedCount, duplicates: count - storedCount)
    }

    /// Inserts `batch` with PostgreSQL's plain multi-row insert (``PostgresSchema/plainInsertSQL``):
    /// one statement, committed on its own, nothing counted. `beacon bench ingest`'s baseline.
    func insertPlain(_ batch: AcceptedBatch) async throws {
        let query = try Self.insertQuery(for: batch, sql: PostgresSchema.plainInsertSQL)
        try await guarded { [client, logger] in
            try await client.query(query, logger: logger)
            return ()
        }
    }

    /// Drops the configured schema with everything in it (`beacon bench ingest` cleans up
    /// after each run with it); does nothing when no schema is configured.
    func dropSchema() async throws {
        guard let schema = configuration.schema else { return }
        let statement = PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE")
        try await withDeadline(configuration.operationTimeout) { [client, logger] in
            try await client.query(statement, logger: logger)
            return ()
        }
    }

    func count() async throws -> Int {
        let total = try await guarded { [client, logger] in
            var total: Int64 = 0
            for try await value in try await client.query("SELECT count(*) FROM collector_events", logger: logger)
                .decode(Int64.self)
            {
                total = value
            }
            return total
        }
        return Int(clamping: total)
    }

    func totals() async throws -> StoreTotals {
        let (events, batches) = try await guarded { [client, logger] in
            var totals: (Int64, Int64) = (0, 0)
            for try await row in try await client.query(PostgresQuery(unsafeSQL: PostgresSchema.totalsSQL), logger: logger)
                .decode((Int64, Int64).self)
            {
                totals = row
            }
            return totals
        }
        // Rows read back are checked: the table is the database's, and anyone may write to it.
        guard events >= 0, batches >= 0, let eventCount = Int(exactly: events), let batchCount = Int(exactly: batches) else {
            throw StoreTotalsError(reason: "collector_totals sums to \(events) events and \(batches) batches")
        }
        return StoreTotals(store: "postgres", events: eventCount, batches: batchCount)
    }

    func messageIds() async throws -> [String] {
        try await guarded { [client, logger] in
            var ids: [String] = []
            for try await id in try await client.query("SELECT message_id FROM collector_events ORDER BY id", logger: logger)
                .decode(String.self)
            {
                ids.append(id)
            }
            return ids
        }
    }

    func messageIdBytes() async throws -> [[UInt8]] {
        // PostgreSQL text holds no NUL, so the String read back is the stored bytes exactly.
        try await messageIds().map { Array($0.utf8) }
    }

    func events(limit: Int) async throws -> [StoredEvent] {
        let limit = Int64(max(0, limit))
        return try await guarded { [client, logger] in
            var events: [StoredEvent] = []
            let rows = try await client.query(
                """
                SELECT message_id, type, name, user_id, anonymous_id, timestamp, received_at, json
                FROM collector_events ORDER BY id LIMIT \(limit)
                """, logger: logger)
            for try await (id, type, name, userId, anonymousId, timestamp, receivedAt, json) in rows.decode(
                (String, String, String?, String?, String?, String?, Int64, String).self)
            {
                events.append(
                    StoredEvent(
                        messageId: id, type: type, name: name, userId: userId, anonymousId: anonymousId,
                        timestamp: timestamp, receivedAtMilliseconds: receivedAt, json: json))
            }
            return events
        }
    }

    func health() async -> StoreHealth {
        do {
            _ = try await withDeadline(min(configuration.operationTimeout, .seconds(2))) { [client, logger] in
                try await client.query("SELECT 1", logger: logger)
            }
            return StoreHealth(kind: "postgres", problem: nil)
        } catch {
            return StoreHealth(kind: "postgres", problem: Self.unavailable(error).reason)
        }
    }

    /// Admits one operation under the pending limit, applies the schema once, and runs
    /// `work` under the operation timeout; failures that mean "not now" become
    /// ``StoreUnavailableError``.
    private func guarded<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = configuration.poolSize * configuration.pendingPerConnection
        let admitted = pending.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw StoreUnavailableError(
                reason: "\(limit) operations already wait for PostgreSQL", retryAfterSeconds: Self.retryAfterSeconds)
        }
        do {
            return try await withDeadline(configuration.operationTimeout) { [self] in
                // Released when the work ends, even work abandoned at its deadline: what a
                // stuck pool holds stays within the limit.
                defer { pending.withLock { $0 -= 1 } }
                try await migrate()
                return try await work()
            }
        } catch {
            throw Self.classify(error)
        }
    }

    /// Applies the schema once per process: concurrent first requests wait for one
    /// migration rather than each taking a connection to wait on the advisory lock; a
    /// failed one is tried again by the next request.
    private func migrate() async throws {
        let task = migration.withLock { current in
            if let current { return current }
            // A task of its own, not a child of one request: the requests that come while
            // it runs wait on it, and one that goes away must not cancel the others' migration.
            let task = Task { [self] in try await applyMigrations() }
            current = task
            return task
        }
        do {
            try await task.value
        } catch {
            migration.withLock { current in
                if current == task { current = nil }
            }
            throw error
        }
    }

    /// Applies the migrations the database has not recorded yet.
    private func applyMigrations() async throws {
        let schema = configuration.schema
        try await client.withTransaction(logger: logger) { [logger] connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            if let schema {
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
            }
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS collector_schema_version (version integer PRIMARY KEY)", logger: logger)
            var current: Int32 = 0
            for try await version in try await connection.query(
                "SELECT coalesce(max(version), 0) FROM collector_schema_version", logger: logger
            ).decode(Int32.self) {
                current = version
            }
            for (offset, sql) in PostgresSchema.migrations.enumerated() {
                let version = Int32(offset + 1)
                guard version > current else { continue }
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                try await connection.query("INSERT INTO collector_schema_version (version) VALUES (\(version))", logger: logger)
                logger.info("collector schema migrated", metadata: ["version": "\(version)"])
            }
        }
    }

    /// The key of the advisory lock migrations take ("beacon16").
    static let migrationLock: Int64 = 0x6265_6163_6F6E_3136

    /// The insert of `batch` (`sql`, by default the collector's own): seven column arrays
    /// and the shared `received_at`.
    static func insertQuery(for batch: AcceptedBatch, sql: String = PostgresSchema.insertSQL) throws -> PostgresQuery {
        var ids = PostgresTextArray(), types = PostgresTextArray(), names = PostgresTextArray()
        var userIds = PostgresTextArray(), anonymousIds = PostgresTextArray(), timestamps = PostgresTextArray()
        var jsons = PostgresTextArray()
        let parsed = batch.parsed
        try parsed.withText { text throws(PostgresTextArray.TooLarge) in
            func bytes(_ field: FieldValue?) -> UnsafeBufferPointer<UInt8>? {
                guard let field, field.hasText else { return nil }
                return text.bytes(field)
            }
            for (item, type) in zip(parsed.items, batch.types) {
                let fields = item.fields
                try ids.append(bytes(fields.messageId))
                try types.append(type.name)
                try names.append(bytes(type == .track ? fields.event : fields.name))
                try userIds.append(bytes(fields.userId))
                try anonymousIds.append(bytes(fields.anonymousId))
                try timestamps.append(bytes(fields.timestamp?.hasText == true ? fields.timestamp : fields.originalTimestamp))
                try jsons.append(text.bytes(item.range))
            }
        }
        var bindings = PostgresBindings(capacity: 8)
        for column in [ids, types, names, userIds, anonymousIds, timestamps, jsons] { bindings.append(column) }
        bindings.append(batch.receivedAtMilliseconds)
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// `error` as the store reports it: SQL errors that retrying cannot fix stay as they
    /// are (500); everything else (connection refused or lost, server shutting down, a
    /// timeout, too many waiting) is ``StoreUnavailableError`` (503).
    static func classify(_ error: any Error) -> any Error {
        if let transaction = error as? PostgresTransactionError,
            let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError
        {
            return classify(inner)
        }
        if let error = error as? PSQLError, error.code == .server {
            let state = error.serverInfo?[.sqlState] ?? ""
            // 08 connection, 53 resources, 57 operator intervention (shutdown), 40 rollbacks (serialization, deadlock).
            guard ["08", "53", "57", "40"].contains(String(state.prefix(2))) else { return error }
        }
        return unavailable(error)
    }

    /// `error` as a ``StoreUnavailableError`` whose reason holds no credentials.
    static func unavailable(_ error: any Error) -> StoreUnavailableError {
        if let error = error as? StoreUnavailableError { return error }
        let reason: String
        if let error = error as? PSQLError {
            // PSQLError's own description is generic on purpose; its code and the server's message are safe to show.
            let message = error.serverInfo?[.message].map { ": \($0)" } ?? ""
            reason = "PostgreSQL \(error.code)\(message)"
        } else if error is DeadlineExceeded {
            reason = "PostgreSQL did not answer in time"
        } else {
            reason = "PostgreSQL unreachable: \(error)"
        }
        return StoreUnavailableError(reason: reason, retryAfterSeconds: retryAfterSeconds)
    }
}

/// An operation ran past its deadline.
struct DeadlineExceeded: Error {}

/// Runs `work`, cancelling it and throwing ``DeadlineExceeded`` after `timeout` (or at
/// once when the caller is cancelled).
///
/// Returns at the deadline even if `work` does not stop when cancelled: a task group would
/// wait for it, and a connection request that postgres-nio's pool never answers (its pool
/// shut down, or a server that came back while it waited) would then hold the HTTP request,
/// and the collector's graceful shutdown with it, for ever. The abandoned work ends in the
/// background whenever it does; the store's pending limit counts it until then.
func withDeadline<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = DeadlineRace<T>()
    let worker = Task { race.finish(with: await Result(catching: { try await work() })) }
    let timer = Task {
        try? await Task.sleep(for: timeout)  // cancelled when the work finished first: nothing to do
        race.finish(with: .failure(DeadlineExceeded()))
    }
    defer {
        worker.cancel()
        timer.cancel()
    }
    return try await withTaskCancellationHandler {
        try await race.value()
    } onCancel: {
        race.finish(with: .failure(CancellationError()))
    }
}

/// The first of several outcomes, handed to one waiter.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }

    private let state = Mutex(State())

    /// Records `result` if nothing was recorded yet, and resumes the waiter with it.
    func finish(with result: Result<T, any Error>) {
        let waiter: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    /// The first outcome, once there is one.
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<T, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

/// Where a collector keeps the events it accepts: the seam between ingest and storage.
///
/// Every implementation keeps the same promises: ``insert(_:)`` stores a batch all or
/// nothing, stores each `messageId` once (compared byte for byte, so NFC and NFD spellings
/// are two events), and returns only after the batch is durable; the stored and duplicate
/// counts come from the database itself. ``EventStore`` (SQLite, one process) and
/// ``PostgresEventStore`` (several collectors over one PostgreSQL) conform; another
/// process may plug in its own through ``Collector/init(configuration:store:logger:)``
/// (`beacon agent` queues accepted events in an engine's store).
public protocol CollectorStore: Sendable {
    /// Stores every event of `batch`, or none; events whose `messageId` is already stored
    /// count as duplicates.
    ///
    /// - Throws: ``StoreUnavailableError`` when the database cannot take the batch now
    ///   (down, slow, too many batches already waiting, or full): the caller answers 503.
    ///   ``StoreRefusedEventsError`` when the store refuses some events for good: the
    ///   caller answers 400 listing them.
    func insert(_ batch: AcceptedBatch) async throws -> StoreInsertResult

    /// The number of distinct events stored (shared by every collector over the same
    /// database), counted row by row: for tests and checks, not for every request.
    func count() async throws -> Int

    /// The totals of the whole database, from its counter table (a few rows to read).
    ///
    /// - Throws: ``StoreUnavailableError`` when the database cannot be reached now.
    func totals() async throws -> StoreTotals

    /// Stored `messageId`s in arrival order.
    func messageIds() async throws -> [String]

    /// Stored `messageId`s in arrival order, as their exact bytes.
    func messageIdBytes() async throws -> [[UInt8]]

    /// Stored events in arrival order, at most `limit` of them.
    func events(limit: Int) async throws -> [StoredEvent]

    /// Whether the database answers now; `/health` reports it.
    func health() async -> StoreHealth

    /// Runs what the store needs in the background (a connection pool) until cancelled;
    /// returns at once when it needs nothing.
    func run() async
}

/// What the store's database holds, read from the database itself: the totals every
/// collector writing to the same database shares (`GET /v1/stats` reports them as
/// `shared`, beside this process's own counters).
///
/// They come from a counter table that each batch's transaction updates, so reading them
/// costs a handful of rows however many events are stored (never a `count(*)` scan).
public struct StoreTotals: Sendable, Hashable, Codable {
    /// The store's kind: `"sqlite"` or `"postgres"`.
    public var store: String
    /// Distinct events stored (each `messageId` once), by every collector.
    public var events: Int
    /// Batches that stored at least one new event, by every collector (a batch delivered
    /// again, whose events were all stored already, does not count).
    public var batches: Int
    /// How old the reading is, in seconds (the collector reuses one for up to a second).
    public var ageSeconds: Double

    /// Creates a reading.
    public init(store: String, events: Int, batches: Int, ageSeconds: Double = 0) {
        self.store = store
        self.events = events
        self.batches = batches
        self.ageSeconds = ageSeconds
    }
}

/// Which pending events `beacon events` and the console's pending view list: those one
/// destination still has to deliver (or any destination, when `nil`), optionally only
/// those whose JSON contains some text, at most `limit` from each end of the queue.
public struct PendingEventQuery: Sendable, Hashable {
    /// The destination whose pending events are listed; `nil`: events any destination
    /// still has to deliver (the store's queue).
    public var destination: String?
    /// Bytes the event's JSON must contain (case-sensitive, as stored); `nil` or empty: all.
    public var containing: String?
    /// Events listed at most from the head (oldest) and from the tail (newest), each.
    public var limit: Int
    /// Only events after this sequence number: the next page of a reader that walks the
    /// whole queue from its head (`beacon plan check --db`), reading the head of each page.
    public var after: Int64?

    /// The bound of ``limit``: a page is for reading, not an export.
    public static let limits = 1...1_000

    public init(destination: String? = nil, containing: String? = nil, limit: Int = 10, after: Int64? = nil) {
        self.destination = destination
        self.containing = containing
        self.after = after
        self.limit = min(max(limit, Self.limits.lowerBound), Self.limits.upperBound)
    }
}

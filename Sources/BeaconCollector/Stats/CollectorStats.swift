/// A snapshot of what the collector has seen since it started: the JSON of `GET /v1/stats`.
///
/// Event counts: `received` counts the events in every well-formed, authorized ingest body
/// (valid or not); of those, `stored` were new, `duplicates` were already stored, `rejected` were
/// invalid (listed in a 400's `rejected` array), `faulted` met an injected fault.
public struct CollectorStats: Sendable, Hashable, Codable {
    /// Events in well-formed, authorized ingest bodies.
    public var received: Int
    /// Events stored for the first time.
    public var stored: Int
    /// Events whose `messageId` was already stored (delivered again).
    public var duplicates: Int
    /// Invalid events, listed back to their senders.
    public var rejected: Int
    /// Events in requests answered with an injected fault (nothing stored).
    public var faulted: Int
    /// HTTP requests answered (or reset), on every route.
    public var requests: Int
    /// Invalid events by reason code (`missing_message_id`, `event_too_large`, ...).
    public var rejectedByReason: [String: Int]
    /// Refused requests by error code (`invalid_json`, `request_too_large`, `injected_failure`, ...).
    public var errorsByCode: [String: Int]
    /// Requests by HTTP status (`"200"`, `"429"`; `"reset"` for connections closed without one).
    public var responsesByStatus: [String: Int]
    /// Events received per second over the last ``rateWindowSeconds``.
    public var receivedPerSecond: Double
    /// Events stored per second over the last ``rateWindowSeconds``.
    public var storedPerSecond: Double
    /// Requests per second over the last ``rateWindowSeconds``.
    public var requestsPerSecond: Double
    /// The window the rates are measured over, in seconds (between 1 and 5; shorter just after start).
    public var rateWindowSeconds: Double
    /// Seconds since the collector was created.
    public var uptimeSeconds: Double
    /// What the store's database holds, shared by every collector that writes to it (for
    /// SQLite, the file's totals, including what earlier runs stored); `nil` in
    /// ``Collector/stats()`` and when the database has not answered yet. Every count above
    /// is this process's own since it started.
    public var shared: StoreTotals?
    /// Why ``shared`` could not be read just now (it may then hold an older reading, with its age).
    public var sharedProblem: String?

    /// Creates a snapshot; all counts default to zero.
    public init(
        received: Int = 0, stored: Int = 0, duplicates: Int = 0, rejected: Int = 0, faulted: Int = 0,
        requests: Int = 0, rejectedByReason: [String: Int] = [:], errorsByCode: [String: Int] = [:],
        responsesByStatus: [String: Int] = [:], receivedPerSecond: Double = 0, storedPerSecond: Double = 0,
        requestsPerSecond: Double = 0, rateWindowSeconds: Double = 0, uptimeSeconds: Double = 0,
        shared: StoreTotals? = nil, sharedProblem: String? = nil
    ) {
        self.received = received
        self.stored = stored
        self.duplicates = duplicates
        self.rejected = rejected
        self.faulted = faulted
        self.requests = requests
        self.rejectedByReason = rejectedByReason
        self.errorsByCode = errorsByCode
        self.responsesByStatus = responsesByStatus
        self.receivedPerSecond = receivedPerSecond
        self.storedPerSecond = storedPerSecond
        self.requestsPerSecond = requestsPerSecond
        self.rateWindowSeconds = rateWindowSeconds
        self.uptimeSeconds = uptimeSeconds
        self.shared = shared
        self.sharedProblem = sharedProblem
    }
}

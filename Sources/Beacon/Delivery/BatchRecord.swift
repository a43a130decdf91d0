import BeaconWire

/// One finished send, as the batch history keeps it (in memory and in the store).
public struct BatchRecord: Sendable, Hashable, Identifiable {
    /// The batch id (increasing).
    public var id: Int64
    /// The destination's name.
    public var destination: String
    /// When the send started (wall clock).
    public var startedAt: Timestamp
    /// How long the send took.
    public var duration: Duration
    /// Events in the batch.
    public var events: Int
    /// Bytes of event JSON in the batch (before compression).
    public var bytes: Int
    /// 1 for a first try, then 2, 3, ...
    public var attempt: Int
    /// The HTTP status, when there was a response.
    public var status: Int?
    /// What happened.
    public var outcome: BatchOutcome
    /// The error, when there was one, as a user would read it.
    public var error: String?

    public init(
        id: Int64, destination: String, startedAt: Timestamp, duration: Duration, events: Int, bytes: Int,
        attempt: Int, status: Int?, outcome: BatchOutcome, error: String?
    ) {
        self.id = id
        self.destination = destination
        self.startedAt = startedAt
        self.duration = duration
        self.events = events
        self.bytes = bytes
        self.attempt = attempt
        self.status = status
        self.outcome = outcome
        self.error = error
    }
}

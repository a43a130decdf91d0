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

/// What a send did to its batch.
public enum BatchOutcome: String, Sendable, Hashable, CaseIterable {
    /// Delivered; the events left the queue.
    case sent
    /// Failed for now; the events stay queued and are retried after a backoff.
    case retry
    /// Too large (or refused without saying which event): split in halves.
    case split
    /// Some events were refused for good and dead-lettered; the rest stay queued.
    case deadLettered = "dead-lettered"
    /// The credentials were refused; the destination paused.
    case paused
    /// The destination's enrichment filtered out every event: nothing was sent.
    case filtered
}

/// A problem with the store that the engine is riding out.
public struct StorageProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem.
    public enum Kind: String, Sendable, Hashable {
        case diskFull = "disk full"
        case readOnly = "read-only"
        case locked
        case fileRemoved = "file removed"
        case ioError = "I/O error"
        case other
    }

    public var kind: Kind
    /// The underlying error's message.
    public var message: String
    /// When it started (wall clock).
    public var since: Timestamp
    /// Events held in memory until the store works again.
    public var bufferedEvents: Int

    public init(kind: Kind, message: String, since: Timestamp, bufferedEvents: Int) {
        self.kind = kind
        self.message = message
        self.since = since
        self.bufferedEvents = bufferedEvents
    }

    public var description: String { "\(kind.rawValue): \(message) (\(bufferedEvents) events held in memory)" }
}

import BeaconWire

/// Delivers batches to one destination: the seam between the batcher and the network.
///
/// A sender never throws: every result, good or bad, is a ``SendResult`` whose
/// ``SendOutcome`` tells the batcher what to do with the events (see ``DeliveryPlanner``).
/// Beacon ships an HTTP sender, an NDJSON file sender and a log sender; tests use the
/// recording sender of `BeaconTesting`.
public protocol EventSender: Sendable {
    /// Where this sender delivers, for logs and the dashboard (`http://127.0.0.1:8080`).
    var endpointDescription: String { get }

    /// Sends one batch. Called with at most one batch in flight per destination.
    func send(_ batch: OutgoingBatch) async -> SendResult

    /// Does the CPU work of sending ahead of time (encoding, compression), so that it
    /// overlaps the request in flight. The batcher calls it for the batch it reads
    /// ahead; `send` then uses what it prepared. The default prepares nothing.
    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch
}

extension EventSender {
    public func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { batch }
}

/// A batch on its way out: events read from the queue, in queue order.
public struct OutgoingBatch: Sendable, Hashable {
    /// The batch's id in the history (increasing).
    public var id: Int64
    /// The events, in queue order.
    public var events: [QueuedEvent]
    /// 1 for the first try of these events, then 2, 3, ...
    public var attempt: Int
    /// The request body a sender encoded ahead of time (see ``EventSender/prepare(_:)``).
    public var preparedBody: PreparedBody?

    public init(id: Int64, events: [QueuedEvent], attempt: Int) {
        self.id = id
        self.events = events
        self.attempt = attempt
    }

    /// The sum of the events' JSON sizes.
    public var eventBytes: Int { events.reduce(0) { $0 + $1.payload.count } }

    /// The Segment-compatible request body for these events.
    public func body(sentAt: Timestamp = .now(), writeKey: String? = nil) -> [UInt8] {
        Batch.body(encodedEvents: events.lazy.map(\.payload), sentAt: sentAt, writeKey: writeKey)
    }
}

/// A request body encoded ahead of time by a sender, for that sender.
public struct PreparedBody: Sendable, Hashable {
    /// The bytes to send.
    public var bytes: [UInt8]
    /// Whether they are gzipped.
    public var gzipped: Bool

    public init(bytes: [UInt8], gzipped: Bool) {
        self.bytes = bytes
        self.gzipped = gzipped
    }
}

/// One stored event: its place in the queue and its JSON.
public struct QueuedEvent: Sendable, Hashable {
    /// Its position in the queue (increasing in insertion order).
    public var sequence: Int64
    /// The event's `messageId`.
    public var messageId: String
    /// The event's name.
    public var name: String
    /// The event as a JSON object, exactly as it goes on the wire.
    public var payload: [UInt8]

    public init(sequence: Int64, messageId: String, name: String, payload: [UInt8]) {
        self.sequence = sequence
        self.messageId = messageId
        self.name = name
        self.payload = payload
    }
}

/// What a send came to.
public struct SendResult: Sendable, Hashable {
    /// What it means for the events.
    public var outcome: SendOutcome
    /// The HTTP status, when there was a response.
    public var status: Int?
    /// The bytes that went on the wire (after compression), when known.
    public var wireBytes: Int?

    public init(_ outcome: SendOutcome, status: Int? = nil, wireBytes: Int? = nil) {
        self.outcome = outcome
        self.status = status
        self.wireBytes = wireBytes
    }
}

/// The meaning of a send's result for the events in the batch.
public enum SendOutcome: Sendable, Hashable {
    /// Every event was accepted (2xx).
    case delivered
    /// Nothing was accepted, but trying again may work (408, 429, 5xx, timeout,
    /// connection errors). `retryAfter` is the server's `Retry-After`, if it gave one.
    case retryable(reason: String, retryAfter: Duration?)
    /// The destination refused some events for good (400). The listed events are
    /// dead-lettered with their reasons and the others are sent again. An empty list
    /// means the server did not say which: the batch is split until the culprit is alone.
    case rejected([EventRejection])
    /// The request was too large (413): the batch is split in halves.
    case tooLarge
    /// The destination refused the credentials (401, 403): it pauses until resumed.
    case unauthorized(reason: String)
}

/// One event that a destination refused, and why.
public struct EventRejection: Sendable, Hashable {
    /// The event's `messageId`.
    public var messageId: String
    /// The destination's reason, as a user would read it.
    public var reason: String

    public init(messageId: String, reason: String) {
        self.messageId = messageId
        self.reason = reason
    }
}

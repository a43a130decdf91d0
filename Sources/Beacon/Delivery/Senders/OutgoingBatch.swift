import BeaconWire

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
    public var eventBytes: Int { events.reduce(0) { $0 + $1.payloadCount } }

    /// The Segment-compatible request body for these events.
    public func body(sentAt: Timestamp = .now(), writeKey: String? = nil) -> [UInt8] {
        Batch.body(encodedEvents: events.map(\.payloadBytes), sentAt: sentAt, writeKey: writeKey)
    }
}

import BeaconWire
import Synchronization

/// The entry point of feature code: validates an event, stamps it (UUIDv7 `messageId`,
/// ISO-8601 timestamp) and hands it to the queue.
///
/// `track` never waits on the network and, unless the memory buffer is full while the
/// store is healthy, never waits on the disk: the event is committed by the next group
/// commit (typically under a millisecond later, at most about two transactions, ≤ 10 ms
/// with the default 1,000 events per transaction). To wait until it is durable:
///
/// ```swift
/// try tracker.track("Signed Up", properties: ["plan": "pro"], userId: "u-42")
/// try await tracker.track("Order Completed", properties: ["total": 99.5]).committed()
/// ```
public final class Tracker: Sendable {
    /// The queue events go to.
    public let queue: any EventAppender
    /// The checks and limits applied to every event.
    public let validator: EventValidator
    private let context: [String: JSONValue]
    /// `context` as JSON, for events that add none of their own (nil when empty).
    private let encodedContext: [UInt8]?
    /// The `anonymousId` given to events that carry neither a `userId` nor an
    /// `anonymousId` (the Segment API requires one of them).
    public let defaultAnonymousId: String
    private let ids: UUIDv7Generator
    let observer: TrackingObserver?
    /// Remote-config hook: drops blocklisted and sampled-out events before they are
    /// queued (counted in the filter; the receipt says so). `nil`: keep everything.
    public let filter: EventFilter?
    /// The size of the last event's JSON plus a little: the next one is encoded into a
    /// buffer of about its own size, so an event waiting in memory for its commit holds
    /// about its JSON (a fixed 512-byte buffer held 60% more for a typical event).
    private let payloadCapacity = Atomic(512)
    /// How many events this tracker accepted under each name since it started, the
    /// busiest kept in a bounded space: what floods the queue.
    public let eventNames: EventNameCounter

    /// Counts events accepted under these names.
    func countAccepted(_ accepted: some Sequence<String>) {
        eventNames.add(accepted)
    }

    /// The `context.library` Beacon adds to every event.
    public static let libraryContext: [String: JSONValue] = ["library": ["name": "beacon-swift", "version": .string(BeaconVersion.current)]]

    /// - Parameters:
    ///   - context: fields merged into every event's `context` (the event's own win).
    ///   - defaultAnonymousId: for events with neither `userId` nor `anonymousId`;
    ///     a random UUID, the same for the tracker's lifetime, when not given.
    public init(
        queue: any EventAppender, validator: EventValidator = EventValidator(), context: [String: JSONValue] = Tracker.libraryContext,
        defaultAnonymousId: String? = nil, ids: UUIDv7Generator = .shared, observer: TrackingObserver? = nil,
        filter: EventFilter? = nil, eventNames: EventNameCounter = EventNameCounter()
    ) {
        self.eventNames = eventNames
        self.filter = filter
        self.queue = queue
        self.defaultAnonymousId = defaultAnonymousId ?? UUIDv7Generator.shared.next()
        self.validator = validator
        self.context = context
        self.encodedContext = context.isEmpty ? nil : JSONValue.object(context).jsonBytes
        self.ids = ids
        self.observer = observer
    }

    /// Tracks an event. Returns once it is validated and buffered; await
    /// ``TrackReceipt/committed()`` on the result to know it is stored.
    @discardableResult
    public func track(
        _ name: String, properties: [String: JSONValue] = [:], userId: String? = nil, anonymousId: String? = nil,
        context: [String: JSONValue]? = nil, timestamp: Timestamp? = nil
    ) throws(TrackingError) -> TrackReceipt {
        do {
            try validator.validate(name: name, properties: properties, context: context, userId: userId, anonymousId: anonymousId)
        } catch {
            observer?.report(.rejected(error))
            throw error
        }
        var merged = self.context
        if let context { merged.merge(context) { _, own in own } }
        let event = Event(
            name: name, properties: properties, messageId: ids.next(), timestamp: timestamp ?? .now(), userId: userId,
            anonymousId: anonymousId ?? (userId == nil ? defaultAnonymousId : nil), context: merged.isEmpty ? nil : merged)
        // With a context of its own the event carries the merged context; without, the
        // tracker's is written as encoded once ahead. The bytes are those of `jsonBytes`.
        let payload = event.jsonBytes(
            encodedContext: context == nil ? encodedContext : nil, capacity: payloadCapacity.load(ordering: .relaxed))
        payloadCapacity.store(payload.count + payload.count / 16 + 16, ordering: .relaxed)
        return try enqueue(event, payload: payload)
    }

    /// Tracks an event given as one JSON object (a line of NDJSON): `{"event": "...",
    /// "properties": {...}, "userId": "...", "anonymousId": "...", "context": {...},
    /// "timestamp": "...", "messageId": "..."}`. Bytes must be UTF-8.
    @discardableResult
    public func track(json bytes: some Collection<UInt8>) throws(TrackingError) -> TrackReceipt {
        let input: TrackInput
        do {
            input = try TrackInput(json: Array(bytes))
        } catch {
            observer?.report(.rejected(error))
            throw error
        }
        if let messageId = input.messageId {
            do {
                try validator.validate(
                    name: input.name, properties: input.properties, context: input.context, userId: input.userId,
                    anonymousId: input.anonymousId)
            } catch {
                observer?.report(.rejected(error))
                throw error
            }
            var merged = self.context
            if let context = input.context { merged.merge(context) { _, own in own } }
            return try enqueue(Event(
                name: input.name, properties: input.properties, messageId: messageId, timestamp: input.timestamp ?? .now(),
                userId: input.userId, anonymousId: input.anonymousId ?? (input.userId == nil ? defaultAnonymousId : nil),
                context: merged))
        }
        return try track(
            input.name, properties: input.properties, userId: input.userId, anonymousId: input.anonymousId,
            context: input.context, timestamp: input.timestamp)
    }

    /// Queues `event`, whose JSON is `payload` when already encoded.
    private func enqueue(_ event: Event, payload: [UInt8]? = nil) throws(TrackingError) -> TrackReceipt {
        let payload = payload ?? event.jsonBytes
        do {
            try validator.validate(encodedBytes: payload.count)
        } catch {
            observer?.report(.rejected(error))
            throw error
        }
        // Remote-config hook: a filtered event is not queued; the filter counts it and the
        // receipt carries the reason (its `committed()` returns at once).
        if let filter {
            let decision = filter.decide(name: event.name ?? "", messageId: event.messageId)
            if decision != .keep {
                return TrackReceipt(messageId: event.messageId, ticket: CommitTicket(rawValue: 0), queue: queue, filtered: decision)
            }
        }
        let ticket = queue.append(PendingEvent(
            messageId: event.messageId, name: event.name ?? "", payload: payload, createdAt: event.timestamp ?? .now()))
        countAccepted(CollectionOfOne(event.name ?? ""))
        return TrackReceipt(messageId: event.messageId, ticket: ticket, queue: queue)
    }
}

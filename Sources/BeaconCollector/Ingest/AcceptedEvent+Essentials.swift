import BeaconWire

extension AcceptedEvent {
    /// What a store that keeps the event itself needs of an ``AcceptedEvent``: its id,
    /// type, name, time and JSON, without the identity fields and the timestamp's text
    /// that ``AcceptedBatch/events`` also copies out of the body (`beacon agent`'s queue;
    /// see ``AcceptedBatch/essentials``).
    public struct Essentials: Sendable, Hashable {
        /// The event's `messageId`.
        public var messageId: String
        /// The Segment call type: the event's own, or the route's default when it names none.
        public var type: String
        /// Whether the event's JSON names its type.
        public var namesItsType: Bool
        /// The event name (`event` for track, `name` for the others), if any.
        public var name: String?
        /// The event's JSON, byte for byte.
        public var json: [UInt8]
        /// The `timestamp` (or `originalTimestamp`) as the collector's checks read it.
        public var time: Timestamp?
    }

    /// An event of `essentials` and the fields they leave out.
    init(_ essentials: Essentials, userId: String?, anonymousId: String?, timestamp: String?) {
        self.init(
            messageId: essentials.messageId, type: essentials.type, name: essentials.name, userId: userId,
            anonymousId: anonymousId, timestamp: timestamp, json: essentials.json, namesItsType: essentials.namesItsType,
            time: essentials.time)
    }

    /// This event's ``Essentials``.
    public var essentials: Essentials {
        Essentials(messageId: messageId, type: type, namesItsType: namesItsType, name: name, json: json, time: time)
    }
}

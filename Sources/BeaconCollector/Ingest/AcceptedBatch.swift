import BeaconWire

/// A batch cleared for storage: every event of the parsed body, with its type and the
/// time the collector received it. A ``CollectorStore`` reads it through ``count`` and
/// ``events``.
public struct AcceptedBatch: Sendable {
    /// The body and the byte ranges of its events and fields.
    var parsed: ParsedBody
    /// The type of each event, in order (the route's default for events that name none).
    var types: [EventType]
    /// The time of each event as the checks read it, in order.
    var times: [Timestamp?]
    /// When the collector received the batch, in milliseconds since 1970.
    public internal(set) var receivedAtMilliseconds: Int64

    init(parsed: ParsedBody, types: [EventType], times: [Timestamp?], receivedAtMilliseconds: Int64) {
        self.parsed = parsed
        self.types = types
        self.times = times
        self.receivedAtMilliseconds = receivedAtMilliseconds
    }

    /// The number of events.
    public var count: Int { parsed.items.count }

    /// Every event, in order, with its fields copied out of the body.
    public var events: [AcceptedEvent] {
        parsed.withText { text in
            parsed.items.enumerated().map { index, item in
                let fields = item.fields
                return AcceptedEvent(
                    essentials(of: item, at: index, in: text), userId: text.string(fields.userId),
                    anonymousId: text.string(fields.anonymousId),
                    timestamp: text.string(fields.timestamp?.hasText == true ? fields.timestamp : fields.originalTimestamp))
            }
        }
    }

    /// Every event, in order, with only what a store that keeps the event itself needs:
    /// the same as ``events`` mapped to ``AcceptedEvent/essentials``, without making the
    /// identity and timestamp strings it would drop.
    public var essentials: [AcceptedEvent.Essentials] {
        parsed.withText { text in
            parsed.items.enumerated().map { index, item in essentials(of: item, at: index, in: text) }
        }
    }

    /// The fields of the event `item` (the `index`th) that both ``events`` and ``essentials`` give.
    private func essentials(of item: ParsedItem, at index: Int, in text: ParsedText) -> AcceptedEvent.Essentials {
        let fields = item.fields
        let type = types[index]
        return AcceptedEvent.Essentials(
            messageId: text.string(fields.messageId) ?? "", type: type.text, namesItsType: fields.type?.kind == .string,
            name: text.string(type == .track ? fields.event : fields.name), json: Array(text.bytes(item.range)),
            time: times[index])
    }
}

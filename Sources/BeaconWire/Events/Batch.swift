/// A request body for `POST /v1/batch`: `{"batch":[...],"sentAt":"...","writeKey":"..."}`.
///
/// Senders that hold events already encoded (Beacon's queue stores each event's JSON)
/// build the body with ``Batch/body(encodedEvents:sentAt:writeKey:)`` without decoding
/// and re-encoding them.
public struct Batch: Sendable, Hashable, Codable {
    /// The events, in order.
    public var batch: [Event]
    /// When the client sent the request; the collector uses it to correct clock skew.
    public var sentAt: Timestamp?
    /// The source's write key, when it travels in the body instead of the header.
    public var writeKey: String?

    public init(batch: [Event], sentAt: Timestamp? = .now(), writeKey: String? = nil) {
        self.batch = batch
        self.sentAt = sentAt
        self.writeKey = writeKey
    }

    /// Compact JSON of this batch.
    public var jsonBytes: [UInt8] {
        Batch.body(encodedEvents: batch.map(\.jsonBytes), sentAt: sentAt, writeKey: writeKey)
    }

    /// Builds a batch body from events that are already JSON objects.
    public static func body<C: Collection>(
        encodedEvents: C,
        sentAt: Timestamp?,
        writeKey: String? = nil
    ) -> [UInt8] where C.Element: Collection, C.Element.Element == UInt8 {
        var capacity = 64
        for event in encodedEvents { capacity += event.count + 1 }
        return body(capacity: capacity, sentAt: sentAt, writeKey: writeKey) { writer in
            var first = true
            for event in encodedEvents {
                if !first { writer.writeByte(UInt8(ascii: ",")) }
                first = false
                let copied: Void? = event.withContiguousStorageIfAvailable { writer.writeRaw($0) }
                if copied == nil { writer.writeRaw(event) }
            }
        }
    }

    /// The same for events held as byte arrays. Not generic, so a caller in another module
    /// copies each event in one go: through the generic entry point every event went
    /// through unspecialized witness calls, most of the body's cost.
    public static func body(encodedEvents: [[UInt8]], sentAt: Timestamp?, writeKey: String? = nil) -> [UInt8] {
        joined(encodedEvents, sentAt: sentAt, writeKey: writeKey)
    }

    /// The same for events held as slices of one buffer (what a queue reads back), not
    /// generic for the same reason.
    public static func body(encodedEvents: [ArraySlice<UInt8>], sentAt: Timestamp?, writeKey: String? = nil) -> [UInt8] {
        joined(encodedEvents, sentAt: sentAt, writeKey: writeKey)
    }

    /// The two entry points above; called with concrete types inside this module, it is
    /// specialized for each.
    private static func joined<Event: RandomAccessCollection<UInt8>>(
        _ encodedEvents: [Event], sentAt: Timestamp?, writeKey: String?
    ) -> [UInt8] {
        var capacity = 64
        for event in encodedEvents { capacity += event.count + 1 }
        return body(capacity: capacity, sentAt: sentAt, writeKey: writeKey) { writer in
            for (index, event) in encodedEvents.enumerated() {
                if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                let copied: Void? = event.withContiguousStorageIfAvailable { writer.writeRaw($0) }
                if copied == nil { writer.writeRaw(event) }
            }
        }
    }

    /// `{"batch":[` then the events `writeEvents` writes, comma-separated, then the rest.
    private static func body(
        capacity: Int, sentAt: Timestamp?, writeKey: String?, writeEvents: (inout JSONWriter) -> Void
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        writer.writeRaw(#"{"batch":["#)
        // The stored events are the bytes that go on the wire: a batch is their
        // concatenation, copied in one go each (byte by byte it was most of the cost).
        writeEvents(&writer)
        writer.writeByte(UInt8(ascii: "]"))
        if let sentAt {
            writer.writeRaw(#","sentAt":""#)
            writer.writeRaw(sentAt.iso8601.utf8)
            writer.writeByte(UInt8(ascii: "\""))
        }
        if let writeKey {
            writer.writeRaw(#","writeKey":"#)
            writer.write(writeKey)
        }
        writer.writeByte(UInt8(ascii: "}"))
        return writer.bytes
    }
}

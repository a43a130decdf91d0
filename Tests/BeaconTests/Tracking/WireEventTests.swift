import Beacon
import BeaconWire
import Testing

/// ``WireEvent`` and ``Tracker/enqueue(_:)``: events other Segment clients wrote, checked
/// as the collector checks them and queued byte for byte under their own messageId.
@Suite("Wire events")
struct WireEventTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("a valid event keeps its bytes, messageId, type, name and timestamp")
    func keepsTheClientsEvent() throws {
        let text = #"{"type":"track", "event":"Signed Up","messageId":"client-1","userId":"u","timestamp":"2026-01-31T12:00:00.000Z","properties":{"v":1e300,"n":-9223372036854775809},"integrations":{"All":true},"context":{"library":{"name":"analytics-python"}}}"#
        let event = try WireEvent(json: Self.bytes(text))
        #expect(event.json == Self.bytes(text))
        #expect(event.messageId == "client-1")
        #expect(event.type == "track")
        #expect(event.name == "Signed Up")
        #expect(event.timestamp == Timestamp(iso8601: "2026-01-31T12:00:00.000Z"))
    }

    @Test("an event without a type gets the route's, written into its JSON")
    func defaultType() throws {
        let event = try WireEvent(json: Self.bytes(#"{"messageId":"i-1","userId":"u","traits":{"plan":"pro"}}"#), defaultType: "identify")
        #expect(event.type == "identify")
        #expect(event.name == nil)
        let json = String(decoding: event.json, as: UTF8.self)
        #expect(json.contains(#""type":"identify""#))
        #expect(json.contains(#""messageId":"i-1""#))
        #expect(json.contains(#""plan":"pro""#))
        #expect(throws: TrackingError.self) { try WireEvent(json: Self.bytes(#"{"messageId":"i-2","userId":"u"}"#), defaultType: "frob") }
    }

    @Test("refusals name the problem", arguments: [
        (#"{"type":"track","event":"E","userId":"u"}"#, "missing_field"),
        (#"{"type":"track","event":"E","messageId":"","userId":"u"}"#, "invalid_identity"),
        (#"{"type":"track","event":"E","messageId":"a\u0000b","userId":"u"}"#, "invalid_identity"),
        (#"{"type":"track","event":"E","messageId":"a\nb","userId":"u"}"#, "invalid_identity"),
        (#"{"type":"track","event":"E","messageId":7,"userId":"u"}"#, "wrong_type"),
        (#"{"type":"track","event":"E","messageId":null,"userId":"u"}"#, "missing_field"),
        (#"{"type":"frob","event":"E","messageId":"m","userId":"u"}"#, "wrong_type"),
        (#"{"type":5,"event":"E","messageId":"m","userId":"u"}"#, "wrong_type"),
        (#"{"type":"track","messageId":"m","userId":"u"}"#, "missing_field"),
        (#"{"type":"track","event":"","messageId":"m","userId":"u"}"#, "missing_field"),
        (#"{"type":"track","event":["E"],"messageId":"m","userId":"u"}"#, "wrong_type"),
        (#"{"type":"track","event":"E","messageId":"m"}"#, "missing_field"),
        (#"{"type":"track","event":"E","messageId":"m","userId":""}"#, "missing_field"),
        (#"{"type":"track","event":"E","messageId":"m","userId":{"id":1},"anonymousId":"a"}"#, "wrong_type"),
        (#"{"type":"track","event":"E","messageId":"m","userId":"u","properties":5}"#, "properties_not_object"),
        (#"{"type":"track","event":"E","messageId":"m","userId":"u","context":[]}"#, "properties_not_object"),
        (#"{"type":"track","event":"E","messageId":"m","userId":"u","timestamp":"yesterday"}"#, "wrong_type"),
        (#"{"type":"track","event":"E","messageId":"m","userId":"u","timestamp":1e300}"#, "wrong_type"),
        (#"{"type":"track","event":"E","messageId":"m","userId":"u","properties":{"v":NaN}}"#, "invalid_json"),
        (#"{"type":"track","event":"E","messageId":"m","userId":"u","properties":{"v":Infinity}}"#, "invalid_json"),
        (#"{"type":"track","event":"E","messageId":"m","userId":"u""#, "invalid_json"),
        (#"["not","an","object"]"#, "wrong_type"),
        ("", "invalid_json"),
    ])
    func refusals(text: String, code: String) {
        do {
            _ = try WireEvent(json: Self.bytes(text))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == code, "\(text): \(error)")
            #expect(!error.description.isEmpty)
        }
    }

    @Test("invalid UTF-8, an over-long messageId and an over-large event are refused")
    func limits() {
        var invalid = Self.bytes(#"{"type":"track","event":"E","messageId":"m","userId":"u"}"#)
        invalid.insert(0xFF, at: 30)
        #expect(throws: TrackingError.invalidUTF8(offset: 30)) { try WireEvent(json: invalid) }
        let longId = String(repeating: "i", count: WireEvent.maxMessageIdBytes + 1)
        #expect(throws: TrackingError.self) { try WireEvent(json: Self.bytes(#"{"event":"E","messageId":"\#(longId)","userId":"u"}"#)) }
        let big = Self.bytes(#"{"event":"E","messageId":"m","userId":"u","properties":{"p":"\#(String(repeating: "x", count: 40_000))"}}"#)
        #expect(throws: TrackingError.eventTooLarge(bytes: big.count, limit: 32 * 1024)) { try WireEvent(json: big) }
        #expect(throws: TrackingError.self) { try WireEvent(json: Self.bytes(#"{"event":"E","messageId":"m","userId":"u"}"#), maxEventBytes: 10) }
    }

    @Test("Tracker.enqueue queues the event's own bytes under its messageId, and commits it")
    func enqueue() async throws {
        let queue = InMemoryEventQueue()
        let tracker = Tracker(queue: queue)
        let text = #"{"type":"page","name":"Home","messageId":"page-1","anonymousId":"a","properties":{"path":"/"}}"#
        let receipt = try tracker.enqueue(try WireEvent(json: Self.bytes(text)))
        try await receipt.committed()
        #expect(receipt.messageId == "page-1")
        let queued = try await queue.peek(limit: 10, maxBytes: 1_000_000)
        #expect(queued.map(\.messageId) == ["page-1"])
        #expect(queued.first?.name == "Home")
        #expect(queued.first?.payload == Self.bytes(text))
        var small = EventValidator()
        small.maxEventBytes = 20
        let strict = Tracker(queue: queue, validator: small)
        #expect(throws: TrackingError.self) { try strict.enqueue(try WireEvent(json: Self.bytes(text))) }
    }
}

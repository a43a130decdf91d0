import Beacon
import BeaconWire
import Testing

@Suite("Validation at track")
struct ValidationTests {
    let queue = InMemoryEventQueue()
    var tracker: Tracker { Tracker(queue: queue) }

    static func deep(_ levels: Int) -> JSONValue {
        var value: JSONValue = 1
        for _ in 0..<levels { value = ["x": value] }
        return value
    }

    /// Each bad event, and the error code it must produce.
    static let cases: [(String, String, @Sendable (Tracker) throws -> Void)] = [
        ("empty name", "empty_name", { try $0.track("") }),
        ("overlong name", "name_too_long", { try $0.track(String(repeating: "n", count: 201)) }),
        ("newline in name", "name_control_character", { try $0.track("Signed\nUp") }),
        ("NaN", "non_finite_number", { try $0.track("e", properties: ["price": .double(.nan)]) }),
        ("infinity in an array", "non_finite_number", { try $0.track("e", properties: ["list": [1, .double(.infinity)]]) }),
        ("too deep", "nesting_too_deep", { try $0.track("e", properties: ["root": deep(40)]) }),
        ("over 32 KB", "event_too_large", { try $0.track("e", properties: ["blob": .string(String(repeating: "x", count: 33_000))]) }),
        ("empty key", "empty_key", { try $0.track("e", properties: ["": 1]) }),
        ("overlong key", "key_too_long", { try $0.track("e", properties: [String(repeating: "k", count: 300): 1]) }),
        ("empty userId", "invalid_identity", { try $0.track("e", userId: "") }),
        ("context with NaN", "non_finite_number", { try $0.track("e", context: ["screen": ["density": .double(-.infinity)]]) }),
        ("invalid UTF-8", "invalid_utf8", { try $0.track(json: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]) }),
        ("not JSON", "invalid_json", { try $0.track(json: Array("{event: nope".utf8)) }),
        ("not an object", "wrong_type", { try $0.track(json: Array("[1,2]".utf8)) }),
        ("properties not an object", "properties_not_object", { try $0.track(json: Array(#"{"event":"e","properties":[1]}"#.utf8)) }),
        ("name not a string", "wrong_type", { try $0.track(json: Array(#"{"event":42}"#.utf8)) }),
        ("bad timestamp", "wrong_type", { try $0.track(json: Array(#"{"event":"e","timestamp":"yesterday"}"#.utf8)) }),
        ("missing name", "missing_field", { try $0.track(json: Array(#"{"properties":{}}"#.utf8)) }),
        ("NUL in messageId", "invalid_identity", { try $0.track(json: Array(#"{"event":"e","messageId":"ord-7\u0000a"}"#.utf8)) }),
        // EventTextRule: no string of an event holds a NUL, wherever it is.
        ("NUL in a property value", "invalid_text", { try $0.track("e", properties: ["k": "v\u{0}"]) }),
        ("NUL in a nested key", "invalid_text", { try $0.track("e", properties: ["a": ["k\u{0}": 1]]) }),
        ("NUL in an array", "invalid_text", { try $0.track("e", properties: ["list": ["ok", "no\u{0}"]]) }),
        ("NUL in userId", "invalid_text", { try $0.track("e", userId: "u\u{0}") }),
        ("NUL in context", "invalid_text", { try $0.track("e", context: ["ip": "\u{0}"]) }),
        ("NUL in NDJSON", "invalid_text", { try $0.track(json: Array(#"{"event":"e","properties":{"n":"\u0000"}}"#.utf8)) }),
        ("lone surrogate in NDJSON", "invalid_json", { try $0.track(json: Array(#"{"event":"e","properties":{"k":"\ud800"}}"#.utf8)) }),
    ]

    @Test func everyKindIsRefusedWithItsOwnReadableErrorAndNothingIsQueued() async throws {
        var messages: Set<String> = []
        for (label, code, call) in Self.cases {
            do {
                try call(tracker)
                Issue.record("\(label): accepted")
            } catch let error as TrackingError {
                #expect(error.code == code, "\(label): \(error.code)")
                #expect(!error.description.contains("\n"), "\(label): one line")
                messages.insert(error.description)
            } catch {
                Issue.record("\(label): untyped error \(error)")
            }
        }
        #expect(messages.count == Self.cases.count, "each error reads differently")
        #expect(Set(Self.cases.map(\.1)).count >= 12, "at least 12 distinct kinds")
        await queue.waitForPendingWrites()
        #expect(queue.depth.events == 0)
        #expect(queue.depth.totals.accepted == 0)
    }

    @Test func errorsNameThePathOfTheFailingValue() {
        let cases: [(TrackingError, @Sendable (Tracker) throws -> Void)] = [
            (.nonFiniteNumber(path: "properties.price"), { try $0.track("e", properties: ["plan": "pro", "price": .double(.nan)]) }),
            (.nonFiniteNumber(path: "properties.list[2]"), { try $0.track("e", properties: ["list": [1, "a", .double(.infinity)]]) }),
            (.nonFiniteNumber(path: "properties.cart.items[0].price"), {
                try $0.track("e", properties: ["cart": ["items": [["sku": "a", "price": .double(.nan)]]]])
            }),
            (.nonFiniteNumber(path: "context.screen.density"), { try $0.track("e", context: ["screen": ["density": .double(-.infinity)]]) }),
            (.emptyKey(path: "properties.cart"), { try $0.track("e", properties: ["cart": ["": 1]]) }),
        ]
        for (expected, call) in cases {
            #expect(throws: expected) { try call(tracker) }
        }
    }

    @Test func queuedPayloadCarriesTheTrackersContextMergedWithTheCallsOwn() async throws {
        let context: [String: JSONValue] = ["library": ["name": "beacon-swift", "version": "9"], "app": ["build": 7]]
        let tracker = Tracker(queue: queue, context: context, defaultAnonymousId: "anon")
        try tracker.track("plain", properties: ["a": 1], timestamp: Timestamp(millisecondsSince1970: 0))
        try tracker.track("own", context: ["app": ["build": 8], "ip": "10.0.0.1"], timestamp: Timestamp(millisecondsSince1970: 0))
        await queue.waitForPendingWrites()
        let queued = try await queue.peek(for: "default", after: nil, limit: 10, maxBytes: .max)
        #expect(queued.count == 2)
        let expected = [
            Event(name: "plain", properties: ["a": 1], messageId: queued[0].messageId, timestamp: Timestamp(millisecondsSince1970: 0), anonymousId: "anon", context: context),
            Event(name: "own", messageId: queued[1].messageId, timestamp: Timestamp(millisecondsSince1970: 0), anonymousId: "anon",
                  context: ["library": ["name": "beacon-swift", "version": "9"], "app": ["build": 8], "ip": "10.0.0.1"]),
        ]
        #expect(queued.map(\.payload) == expected.map(\.jsonBytes))
    }

    @Test func limitsAreInclusive() async throws {
        try tracker.track(String(repeating: "n", count: 200), properties: ["root": Self.deep(31)])
        let receipt = try tracker.track(json: Array(#"{"event":"From NDJSON","properties":{"a":1},"userId":"u","messageId":"given-id","timestamp":"2026-01-02T03:04:05Z"}"#.utf8))
        #expect(receipt.messageId == "given-id")
        try await receipt.committed()
        #expect(queue.depth.events == 2)
    }
}

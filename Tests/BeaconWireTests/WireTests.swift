import BeaconWire
import Foundation
import Testing

@Suite("Wire format")
struct WireTests {
    @Test func jsonWriterEscapesAndSortsKeys() {
        let value: JSONValue = ["b": "quote \" backslash \\ newline \n tab \t bell \u{07}", "a": [1, 2.5, true, nil], "c": ["z": -3]]
        #expect(value.jsonString == #"{"a":[1,2.5,true,null],"b":"quote \" backslash \\ newline \n tab \t bell \u0007","c":{"z":-3}}"#)
    }

    @Test func jsonWriterRoundTripsThroughFoundation() throws {
        let value: JSONValue = ["unicode": "héllo ☃ 🚀", "int": .int(Int.min), "big": 1.5e300, "small": -2.25e-8, "empty": [:], "list": []]
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(value.jsonBytes))
        #expect(decoded == value)
    }

    /// Decoding probes one kind after another: each JSON kind lands in its own case
    /// whatever the order of the probes (a whole number is an int, a string of digits a
    /// string, 0 and 1 no Bool).
    @Test func decodingKeepsEachKind() throws {
        let text = #"{"t":true,"f":false,"n":null,"i":3,"z":0,"o":1,"d":3.5,"s":"3","b":"true","e":"","a":[1,"x",true,null,{"k":[]}],"m":{}}"#
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        let expected: JSONValue = [
            "t": true, "f": false, "n": nil, "i": 3, "z": 0, "o": 1, "d": 3.5, "s": "3", "b": "true", "e": "",
            "a": [1, "x", true, nil, ["k": []]], "m": [:],
        ]
        #expect(decoded == expected)
        for (key, kind) in [("i", "int"), ("z", "int"), ("o", "int"), ("d", "double"), ("t", "bool"), ("s", "string"), ("n", "null")] {
            #expect(decoded[key].map(Self.kind) == kind, "\(key)")
        }
    }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    @Test func uuidV7IsOrderedAndWellFormed() {
        let generator = UUIDv7Generator(millisecondsSinceEpoch: { 1_700_000_000_000 })
        let ids = (0..<5000).map { _ in generator.next() }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(10) {
            let bytes = Array(id.utf8)
            #expect(bytes.count == 36)
            #expect(bytes[14] == UInt8(ascii: "7"))
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(bytes[19]))
            #expect(UUID(uuidString: id) != nil)
        }
        #expect(ids[0].hasPrefix("018bcfe5-6800-7000-"))  // 1_700_000_000_000 ms = 0x18bcfe56800, counter 0
        #expect(ids[4095].hasPrefix("018bcfe5-6800-7fff-"), "the counter's last value in the millisecond")
        // Canonical text: lowercase hex digits, dashes at 8, 13, 18 and 23, and every digit used.
        var digitsSeen = Set<UInt8>()
        for id in ids {
            for (offset, byte) in id.utf8.enumerated() {
                if [8, 13, 18, 23].contains(offset) {
                    #expect(byte == UInt8(ascii: "-"), "\(id)")
                } else {
                    #expect(Array("0123456789abcdef".utf8).contains(byte), "\(id)")
                    digitsSeen.insert(byte)
                }
            }
        }
        #expect(digitsSeen.count == 16)
    }

    @Test func uuidV7StaysOrderedWhenTheClockGoesBack() {
        let times = [5_000, 5_000, 4_000, 6_000]
        let index = LockedCounter()
        let generator = UUIDv7Generator(millisecondsSinceEpoch: { UInt64(times[min(index.next(), times.count - 1)]) })
        let ids = (0..<4).map { _ in generator.next() }
        #expect(ids == ids.sorted())
    }

    @Test(arguments: [
        ("2026-11-21T23:42:05.123Z", 1_795_304_525_123 as Int64),
        ("2026-11-21T23:42:05Z", 1_795_304_525_000),
        ("2026-11-22T01:42:05.1+02:00", 1_795_304_525_100),
        ("2026-11-21T18:42:05.123456-0500", 1_795_304_525_123),
        ("1970-01-01T00:00:00.000Z", 0),
        ("1969-12-31T23:59:59.999Z", -1),
    ])
    func timestampParses(text: String, millis: Int64) {
        #expect(Timestamp(iso8601: text)?.millisecondsSince1970 == millis)
    }

    @Test(arguments: ["", "2026-11-21", "2026-13-01T00:00:00Z", "2026-11-21T25:00:00Z", "2026-11-21T23:42:05", "2026-11-21T23:42:05.Z", "yesterday"])
    func timestampRejects(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test func timestampFormatsWithMilliseconds() {
        #expect(Timestamp(millisecondsSince1970: 1_795_304_525_123).iso8601 == "2026-11-21T23:42:05.123Z")
        #expect(Timestamp(millisecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp(millisecondsSince1970: 951_782_400_000).iso8601 == "2000-02-29T00:00:00.000Z")
    }

    @Test("an instant the format cannot write (a damaged row's) is written as the nearest it can, without trapping")
    func timestampFormatsExtremes() {
        for millis: Int64 in [.min, .min + 1, -62_167_219_200_001, -86_400_000_000_000_000] {
            #expect(Timestamp(millisecondsSince1970: millis).iso8601 == "0000-01-01T00:00:00.000Z", "\(millis)")
        }
        for millis: Int64 in [.max, .max - 1, 253_402_300_800_000] {
            #expect(Timestamp(millisecondsSince1970: millis).iso8601 == "9999-12-31T23:59:59.999Z", "\(millis)")
        }
        #expect(Timestamp(millisecondsSince1970: -62_167_219_200_000).iso8601 == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSince1970: 253_402_300_799_999).iso8601 == "9999-12-31T23:59:59.999Z")
    }

    @Test("every writable instant reads back as itself, and with a space for the T or an offset too")
    func timestampRoundTrips() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5_000 {
            let millis: Int64 = round == 0 ? -62_167_219_200_000 : round == 1 ? 253_402_300_799_999
                : Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &generator)
            let text = Timestamp(millisecondsSince1970: millis).iso8601
            #expect(Timestamp(iso8601: text)?.millisecondsSince1970 == millis, "\(text)")
            let spaced = text.replacingOccurrences(of: "T", with: " ")
            #expect(Timestamp(iso8601: spaced)?.millisecondsSince1970 == millis, "\(spaced)")
            let offset = String(text.dropLast()) + "+00:00"
            #expect(Timestamp(iso8601: offset)?.millisecondsSince1970 == millis, "\(offset)")
        }
        // Truncated anywhere, the text is refused (every prefix short of a whole time).
        let whole = "2026-11-21T23:42:05.123+05:30"
        for length in 0..<19 {
            #expect(Timestamp(iso8601: String(whole.prefix(length))) == nil, "\(whole.prefix(length))")
        }
        #expect(Timestamp(iso8601: whole + " ") == nil)
        #expect(Timestamp(iso8601: "2026-11-21T23:42:05.123+05") == nil)
        #expect(Timestamp(iso8601: "2026-11-21t23:42:05Z") == nil)
    }

    @Test func eventEncodesAsSegmentTrackCall() throws {
        let event = Event(
            name: "Order Completed", properties: ["total": 99.5, "items": 3], messageId: "m-1",
            timestamp: Timestamp(millisecondsSince1970: 0), userId: "u-1", context: ["library": ["name": "beacon-swift"]])
        let text = String(decoding: event.jsonBytes, as: UTF8.self)
        #expect(text == #"{"type":"track","event":"Order Completed","properties":{"items":3,"total":99.5},"messageId":"m-1","timestamp":"1970-01-01T00:00:00.000Z","userId":"u-1","context":{"library":{"name":"beacon-swift"}}}"#)
        let decoded = try JSONDecoder().decode(Event.self, from: Data(event.jsonBytes))
        #expect(decoded == event)
    }

    @Test func eventWithAnEncodedContextEncodesAsWithItsContext() {
        let context: [String: JSONValue] = ["library": ["name": "beacon \"swift\"", "version": "1"], "app": ["build": 7, "tags": ["a", nil]]]
        let event = Event(name: "e", properties: ["b": 1, "a": "x"], messageId: "m", timestamp: Timestamp(millisecondsSince1970: 5), anonymousId: "anon", context: context)
        #expect(event.jsonBytes(encodedContext: JSONValue.object(context).jsonBytes) == event.jsonBytes)
    }

    @Test func batchBodyDecodesAsTheDocumentedSchema() throws {
        let events = (0..<3).map { Event(name: "e\($0)", properties: ["i": .int($0)], anonymousId: "anon") }
        let body = Batch.body(encodedEvents: events.map(\.jsonBytes), sentAt: Timestamp(millisecondsSince1970: 1000), writeKey: "key")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(object["sentAt"] as? String == "1970-01-01T00:00:01.000Z")
        #expect(object["writeKey"] as? String == "key")
        let batch = try #require(object["batch"] as? [[String: Any]])
        #expect(batch.map { $0["messageId"] as? String } == events.map(\.messageId))
        #expect(batch.allSatisfy { $0["type"] as? String == "track" && $0["anonymousId"] as? String == "anon" })
        let decoded = try JSONDecoder().decode(Batch.self, from: Data(body))
        #expect(decoded.batch == events)
    }

    /// Byte arrays take a path of their own (not generic, for speed across modules): it
    /// must write exactly what the generic one writes, for any count and either trailer.
    @Test(arguments: [0, 1, 3])
    func batchBodyFromByteArraysMatchesTheGenericPath(count: Int) throws {
        let events = (0..<count).map { Event(name: "e\($0)", properties: ["i": .int($0), "s": "ü\u{0}\"x"], anonymousId: "anon") }
        let arrays = events.map(\.jsonBytes)
        for (sentAt, writeKey) in [(Timestamp(millisecondsSince1970: 1000), "k\"ey"), (nil, nil)] as [(Timestamp?, String?)] {
            let fast = Batch.body(encodedEvents: arrays, sentAt: sentAt, writeKey: writeKey)
            // A lazy map goes through the generic entry point.
            #expect(fast == Batch.body(encodedEvents: arrays.lazy.map { $0 }, sentAt: sentAt, writeKey: writeKey))
            // Slices of one shared buffer (as a queue reads a batch back), starting past its
            // first byte, take the slice path.
            var shared: [UInt8] = [0x7B]
            var ranges: [Range<Int>] = []
            for array in arrays {
                shared.append(contentsOf: array)
                ranges.append(shared.count - array.count..<shared.count)
                shared.append(0x7D)
            }
            let slices: [ArraySlice<UInt8>] = ranges.map { shared[$0] }
            #expect(fast == Batch.body(encodedEvents: slices, sentAt: sentAt, writeKey: writeKey))
            let decoded = try JSONDecoder().decode(Batch.self, from: Data(fast))
            #expect(decoded.batch == events)
            #expect(decoded.writeKey == writeKey)
        }
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = -1
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

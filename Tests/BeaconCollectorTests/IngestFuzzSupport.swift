@testable import BeaconCollector
import BeaconWire
import Foundation
import Hummingbird
import Logging
import NIOCore

/// SplitMix64: small, fast, and the same sequence for the same seed on every platform.
struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<max(1, bound), using: &self) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// One generated ingest request.
struct FuzzCase: CustomStringConvertible {
    var body: [UInt8]
    var gzipped: Bool
    var mutation: String
    var description: String {
        let preview = String(decoding: body.prefix(160), as: UTF8.self).debugDescription
        return "\(mutation)\(gzipped ? " (gzip)" : "") \(body.count) bytes: \(preview)"
    }
}

/// Mutates valid ingest bodies: byte flips, truncation, splicing, repeated and removed
/// keys, extreme numbers, deep nesting, invalid UTF-8, NUL bytes, wrong types, gzip.
enum IngestMutator {
    static let ids = ["m-1", "m-2", #"ord-7\u0000a"#, #"ord-7\u0000b"#, "caf\u{E9}", "cafe\u{301}", #"caf\u00e9"#, "K", "\u{212A}", #"a\nb"#, "\u{1F600}", "m-1"]
    static let numbers = [
        "1e300", "-1e300", "1e309", "-0", "0", "-0.0", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "1e-400", "123456789012345678901234567890", "0.1", "2.5e-3", "-1",
    ]
    static let notNumbers = [#""NaN""#, #""Infinity""#, #""-inf""#, "NaN", "Infinity", "-", "01", "1.", ".5", "+1", "1e", "0x10"]
    static let wrongValues = ["{}", "[]", "true", "null", "42", #""""#, #"{"a":[1,{"b":null}]}"#, "[1,2,3]", #""x""#]
    static let timestamps = [
        #""2026-01-31T12:00:00.000Z""#, #""2026-13-40T25:61:61Z""#, #""9999999999-01-01T00:00:00Z""#, #""""#, "0", "1e300",
        #""2026-01-31T12:00:00+99:99""#, #""-0001-01-01T00:00:00Z""#, "null",
    ]
    static let keys = ["type", "event", "name", "messageId", "userId", "anonymousId", "timestamp", "originalTimestamp", "sentAt", "properties", "context", "traits", "integrations", "writeKey"]

    /// A valid event, varied by the generator.
    static func validEvent(_ random: inout FuzzRandom, index: Int) -> String {
        let id = random.chance(80) ? "id-\(random.below(40))-\(index)" : random.pick(ids)
        var fields = [#""type":"track""#, #""event":"E\#(random.below(5))""#, #""messageId":"\#(id)""#]
        fields.append(random.chance(70) ? #""userId":"u-\#(random.below(9))""# : #""anonymousId":\#(random.below(1000))"#)
        if random.chance(50) { fields.append(#""properties":{"revenue":\#(random.pick(numbers)),"n":[1,2,{"x":"é"}]}"#) }
        if random.chance(40) { fields.append(#""timestamp":\#(random.pick(timestamps))"#) }
        if random.chance(20) { fields.append(#""context":{"ip":"127.0.0.1","library":{"name":"fuzz"}}"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func validBody(_ random: inout FuzzRandom) -> [UInt8] {
        let count = 1 + random.below(random.chance(10) ? 200 : 6)
        let events = (0..<count).map { validEvent(&random, index: $0) }
        var text = #"{"batch":[\#(events.joined(separator: ","))]"#
        if random.chance(30) { text += #","sentAt":\#(random.pick(timestamps))"# }
        if random.chance(10) { text += #","writeKey":"k""# }
        return Array((text + "}").utf8)
    }

    /// A body: valid, or a valid one with one to three mutations.
    static func generate(_ random: inout FuzzRandom) -> FuzzCase {
        var body = validBody(&random)
        var names: [String] = []
        let rounds = random.chance(25) ? 0 : 1 + random.below(3)
        for _ in 0..<rounds {
            let (mutated, name) = mutate(body, &random)
            body = mutated
            names.append(name)
        }
        let gzipped = random.chance(20)
        return FuzzCase(body: body, gzipped: gzipped, mutation: names.isEmpty ? "valid" : names.joined(separator: "+"))
    }

    static func mutate(_ body: [UInt8], _ random: inout FuzzRandom) -> ([UInt8], String) {
        var body = body
        func replaceValue(of key: String, with value: String) -> Bool {
            guard let range = body.firstRange(of: Array("\"\(key)\":".utf8)) else { return false }
            let start = range.upperBound
            var end = start
            var depth = 0
            var inString = false
            while end < body.count {
                let byte = body[end]
                if inString {
                    if byte == UInt8(ascii: "\\") { end += 1 } else if byte == UInt8(ascii: "\"") { inString = false; if depth == 0 { end += 1; break } }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    if depth == 0 { break }
                    depth -= 1
                    if depth == 0 { end += 1; break }
                } else if byte == UInt8(ascii: ","), depth == 0 {
                    break
                }
                end += 1
            }
            body.replaceSubrange(start..<min(end, body.count), with: Array(value.utf8))
            return true
        }
        switch random.below(16) {
        case 0:
            for _ in 0...random.below(4) where !body.isEmpty { body[random.below(body.count)] ^= UInt8(1 << random.below(8)) }
            return (body, "flip")
        case 1:
            return (Array(body.prefix(random.below(body.count))), "truncate")
        case 2:
            let other = validBody(&random)
            let cut = random.below(body.count)
            return (Array(body.prefix(cut)) + Array(other.suffix(from: random.below(other.count))), "splice")
        case 3:
            let key = random.pick(keys)
            let value = random.pick(wrongValues + numbers + [#""dup""#])
            if let brace = body.firstIndex(of: UInt8(ascii: "{"), after: 9) {
                body.insert(contentsOf: Array("\"\(key)\":\(value),".utf8), at: brace + 1)
            }
            return (body, "duplicate key \(key)")
        case 4:
            let key = random.pick(keys)
            if let range = body.firstRange(of: Array("\"\(key)\":".utf8)) {
                body.removeSubrange(range)
                body.insert(contentsOf: Array("\"x\(random.below(9))\":".utf8), at: range.lowerBound)
            }
            return (body, "remove key \(key)")
        case 5:
            let key = random.pick(["revenue", "anonymousId", "sentAt", "timestamp", "userId", "messageId"])
            _ = replaceValue(of: key, with: random.pick(numbers + notNumbers))
            return (body, "number at \(key)")
        case 6:
            let depth = random.pick([10, 100, 511, 512, 513, 1_000, 20_000])
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: random.chance(80) ? depth : depth - 1)
            _ = replaceValue(of: random.pick(["properties", "context", "batch", "revenue"]), with: nested)
            return (body, "nesting \(depth)")
        case 7:
            let bad: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xF0, 0x9F, 0x98]]
            body.insert(contentsOf: random.pick(bad), at: random.below(body.count + 1))
            return (body, "invalid UTF-8")
        case 8:
            if random.chance(50) {
                body.insert(0, at: random.below(body.count + 1))
                return (body, "raw NUL")
            }
            _ = replaceValue(of: random.pick(["messageId", "userId", "event"]), with: #""x\u0000y""#)
            return (body, "escaped NUL")
        case 9:
            let key = random.pick(keys)
            _ = replaceValue(of: key, with: random.pick(wrongValues))
            return (body, "wrong type at \(key)")
        case 10:
            _ = replaceValue(of: "messageId", with: "\"" + random.pick(ids) + "\"")
            return (body, "messageId spelling")
        case 11:
            let escapes = [#"\ud800"#, #"\udc00"#, #"\ud83d\ude00"#, #"\u00"#, #"\x41"#, #"\/"#, #"\uFFFF"#, #"\u0000"#]
            _ = replaceValue(of: random.pick(["messageId", "event", "userId"]), with: "\"a" + random.pick(escapes) + "b\"")
            return (body, "escape")
        case 12:
            let big = String(repeating: "x", count: random.pick([255, 256, 257, 33 * 1024]))
            _ = replaceValue(of: random.pick(["messageId", "event"]), with: "\"\(big)\"")
            return (body, "long string")
        case 13:
            let count = random.pick([0, 1, 2, 100, 101, 5_000])
            let items = Array(repeating: random.pick(["1", "null", "{}", "[]", #""s""#, validEvent(&random, index: 0)]), count: count)
            return (Array(#"{"batch":[\#(items.joined(separator: ","))]}"#.utf8), "array of \(count)")
        case 14:
            let roots = ["", " ", "[]", "null", "1e300", #""batch""#, #"{"batch":null}"#, #"{"batch":{}}"#, "{}", #"{"batch":[]}"#, #"{"batch":[1]"#]
            return (Array(random.pick(roots).utf8), "odd root")
        default:
            let slice = body.prefix(random.below(body.count))
            body.append(contentsOf: slice)
            return (body, "trailing garbage")
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func firstIndex(of byte: UInt8, after start: Int) -> Int? {
        guard start < count else { return nil }
        return self[start...].firstIndex(of: byte)
    }
}

/// Runs one body through the collector's ingest in-process, stage by stage as the HTTP
/// handler does: body reader (gzip inflater under the cap), UTF-8, parser, admission, store.
struct InProcessIngest {
    let core: CollectorCore

    init(limits: CollectorLimits = CollectorLimits()) throws {
        var logger = Logger(label: "beacon.fuzz")
        logger.logLevel = .critical
        let configuration = CollectorConfiguration(limits: limits)
        core = CollectorCore(configuration: configuration, store: try EventStore(path: nil), logger: logger)
    }

    /// The status and body the collector answers.
    func answer(_ fuzzCase: FuzzCase) async -> (status: Int, body: [UInt8]) {
        var outcome = RequestOutcome(method: "POST", route: "/v1/batch", status: 0)
        do {
            let wire = fuzzCase.gzipped ? gzipForFuzz(fuzzCase.body) : fuzzCase.body
            let body = try await BodyReader.read(
                RequestBody(buffer: ByteBuffer(bytes: wire)), encoding: fuzzCase.gzipped ? .gzip : .identity,
                limit: core.limits.maxRequestBytes)
            let reply = try await IngestHandler(core: core).ingest(
                body, header: .none, route: .batch, channel: nil, outcome: &outcome)
            guard case .response(let response) = reply else { return (0, []) }
            return (Int(response.status.code), await Self.collect(response))
        } catch {
            return (error.status, error.jsonBody)
        }
    }

    private static func collect(_ response: Response) async -> [UInt8] {
        let writer = CollectingBodyWriter()
        let body = response.body
        do {
            try await body.write(writer)
        } catch {
            return []
        }
        return writer.bytes
    }
}

/// A body writer that keeps what it is given.
final class CollectingBodyWriter: ResponseBodyWriter, @unchecked Sendable {
    var bytes: [UInt8] = []
    func write(_ buffer: ByteBuffer) async throws { bytes += Array(buffer.readableBytesView) }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// gzip for the fuzzer: the suite's helper, or a corrupted stream now and then.
func gzipForFuzz(_ body: [UInt8]) -> [UInt8] {
    gzip(body)
}

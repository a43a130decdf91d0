import Beacon
import BeaconWire
import CZlib
import Testing

@Suite("Gzip")
struct GzipTests {
    @Test("JSON round-trips through zlib's inflate")
    func roundTrip() throws {
        let json = Array(#"{"batch":[{"type":"track","event":"Signed Up","properties":{"plan":"pro"}}]}"#.utf8)
        let compressed = try Gzip.compress(json)
        #expect(Array(compressed.prefix(3)) == [0x1F, 0x8B, 0x08], "gzip magic and deflate method")
        #expect(try inflate(compressed) == json)
    }

    @Test("empty input gives a valid, empty gzip member")
    func emptyInput() throws {
        let compressed = try Gzip.compress([])
        #expect(Array(compressed.prefix(2)) == [0x1F, 0x8B])
        #expect(compressed.count <= 24, "a 10-byte header, an empty block and an 8-byte trailer")
        #expect(try inflate(compressed) == [])
    }

    @Test("500 KB of incompressible bytes round-trip (output larger than input)")
    func largeIncompressibleInput() throws {
        var generator = SeededGenerator(seed: 42)
        let bytes = (0..<500 * 1024).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let compressed = try Gzip.compress(bytes)
        #expect(compressed.count > bytes.count)
        #expect(try inflate(compressed) == bytes)
    }

    @Test("a 500 KB batch of typical events compresses to under a fifth", arguments: [1, 6, 9])
    func ratioOnJSON(level: Int) throws {
        let json = typicalBatchBody(targetBytes: 500 * 1024)
        #expect(json.count >= 500 * 1024)
        let compressed = try Gzip.compress(json, level: level)
        #expect(compressed.count * 5 < json.count, "\(compressed.count) of \(json.count) bytes")
        #expect(try inflate(compressed) == json)
    }

    @Test("level 0 stores, level 9 compresses harder than level 1")
    func levelsMatter() throws {
        let json = typicalBatchBody(targetBytes: 64 * 1024)
        let stored = try Gzip.compress(json, level: 0)
        let fast = try Gzip.compress(json, level: 1)
        let best = try Gzip.compress(json, level: 9)
        #expect(stored.count > json.count)
        #expect(best.count <= fast.count)
        #expect(try inflate(stored) == json)
    }

    @Test("compressors are reused, never shared: overlapping calls at mixed levels give what one call alone gives")
    func overlappingCallsAgree() async throws {
        let inputs = (0..<24).map { index in typicalBatchBody(targetBytes: 1024 << (index % 8)) + Array("\(index)".utf8) }
        let levels = [0, 1, 6, 9]
        let alone = try inputs.indices.map { try Gzip.compress(inputs[$0], level: levels[$0 % levels.count]) }
        let overlapping = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for _ in 0..<8 {
                for index in inputs.indices {
                    group.addTask { (index, try Gzip.compress(inputs[index], level: levels[index % levels.count])) }
                }
            }
            var results: [(Int, [UInt8])] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(overlapping.count == inputs.count * 8)
        for (index, compressed) in overlapping {
            #expect(compressed == alone[index], "input \(index)")
        }
        #expect(try inflate(alone[5]) == inputs[5])
    }

    @Test("a level outside 0...9 is a typed error", arguments: [-1, 10, 100])
    func invalidLevel(level: Int) {
        #expect(throws: GzipError(.invalidLevel, message: "level \(level) is not in 0...9")) {
            try Gzip.compress([1, 2, 3], level: level)
        }
    }
}

/// A batch body of typical page-view events, at least `targetBytes` long.
func typicalBatchBody(targetBytes: Int) -> [UInt8] {
    var events: [[UInt8]] = []
    var total = 0
    var index = 0
    while total < targetBytes {
        let event = Event(
            name: ["Page Viewed", "Button Clicked", "Signed Up", "Search"][index % 4],
            properties: [
                "path": .string("/docs/section-\(index % 40)/page-\(index)"),
                "referrer": "https://www.example.com/blog",
                "duration_ms": .int(index * 37 % 5000),
                "experiment": .string(index % 2 == 0 ? "control" : "variant-b"),
            ],
            anonymousId: "anon-\(index % 97)",
            context: ["library": ["name": "beacon-swift", "version": "0.1.0"], "locale": "en-GB", "os": "Linux"]
        )
        events.append(event.jsonBytes)
        total += event.jsonBytes.count + 1
        index += 1
    }
    return Batch.body(encodedEvents: events, sentAt: .now())
}

/// Inflates with zlib directly (windowBits 15 + 32), independently of `Gzip`; checks
/// that the stream ends exactly at the end of the input.
func inflate(_ bytes: [UInt8]) throws -> [UInt8] {
    struct InflateError: Error { var status: Int32 }
    var stream = z_stream()
    guard beacon_inflateInit2(&stream) == Z_OK else { throw InflateError(status: -1) }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    let status: Int32 = bytes.withUnsafeBufferPointer { input in
        stream.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
        stream.avail_in = uInt(input.count)
        while true {
            let status: Int32 = chunk.withUnsafeMutableBufferPointer { out in
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
            if status != Z_OK { return status }
        }
    }
    guard status == Z_STREAM_END, stream.avail_in == 0 else { throw InflateError(status: status) }
    return output
}

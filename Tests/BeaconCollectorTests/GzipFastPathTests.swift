@testable import BeaconCollector
import BeaconWire
import Testing

/// libdeflate's one-call inflate may answer only where zlib's streaming inflate gives the
/// same bytes: every other body goes to zlib, whose refusals are the collector's.
@Suite("Gzip fast path")
struct GzipFastPathTests {
    static let payload = GzipInflaterTests.payload

    /// What the ingest makes of `body`: the fast path's bytes, or zlib's answer.
    static func ingest(_ body: [UInt8], limit: Int) -> Result<[UInt8], CollectorError> {
        do throws(CollectorError) {
            return .success(try BodyReader.inflateGzip(body, limit: limit))
        } catch {
            return .failure(error)
        }
    }

    /// zlib's answer alone: the reference.
    static func zlib(_ body: [UInt8], limit: Int) -> Result<[UInt8], CollectorError> {
        do throws(CollectorError) {
            return .success(try BodyReader.inflateWithZlib(body, limit: limit))
        } catch {
            return .failure(error)
        }
    }

    @Test("a single member within the limit is inflated in one call, to the payload")
    func singleMember() {
        for size in [1, 100, 65_536, 200_000] {
            let payload = Array(Self.payload.prefix(size))
            #expect(GzipFastPath.inflate(gzip(payload), limit: 200_000) == payload, "size \(size)")
        }
    }

    @Test("what the fast path leaves to zlib: a zlib body, two members, bytes after, a lying size, past the limit, cut short")
    func leavesTheRestToZlib() throws {
        let payload = Array(Self.payload.prefix(50_000))
        let body = gzip(payload)
        var zlibBody = body
        zlibBody[0] = 0x78  // not a gzip header
        var smallerSize = body
        smallerSize[body.count - 4] &-= 1  // the trailer says one byte less
        var largerSize = body
        largerSize[body.count - 4] &+= 1
        var badCRC = body
        badCRC[body.count - 8] ^= 0xFF
        var headerCRC = body
        headerCRC[3] |= 0x02
        let cases: [(String, [UInt8], Int)] = [
            ("zlib header", zlibBody, 200_000), ("two members", body + body, 200_000), ("bytes after", body + [0], 200_000),
            ("size one less", smallerSize, 200_000), ("size one more", largerSize, 200_000), ("bad CRC", badCRC, 200_000),
            ("header CRC flag", headerCRC, 200_000), ("past the limit", body, payload.count - 1),
            ("cut short", Array(body.dropLast(9)), 200_000), ("empty payload", gzip([]), 200_000),
        ]
        for (name, input, limit) in cases {
            #expect(GzipFastPath.inflate(input, limit: limit) == nil, "\(name)")
        }
        // And zlib's answers stand: two members and bytes after give the first member, as before.
        #expect(try Self.ingest(body + body, limit: 200_000).get() == payload)
        #expect(throws: CollectorError.self) { try Self.ingest(body, limit: payload.count - 1).get() }
    }

    @Test("a bomb whose trailer states a small size stops at that size and is refused by zlib at the limit")
    func lyingBomb() {
        var bomb = gzip([UInt8](repeating: 0, count: 4 << 20))
        // State 1,000 bytes: the one-call inflate runs out of room at once.
        let stated: [UInt8] = [0xE8, 0x03, 0, 0]
        bomb.replaceSubrange((bomb.count - 4)..., with: stated)
        #expect(GzipFastPath.inflate(bomb, limit: 1 << 20) == nil)
        guard case .failure(let error) = Self.ingest(bomb, limit: 1 << 20) else {
            Issue.record("a 4 MiB bomb passed a 1 MiB limit")
            return
        }
        #expect(error.status == 413, "\(error)")
    }

    @Test("on 3,000 damaged bodies the ingest's answer is zlib's")
    func damagedBodiesAnswerAsZlib() {
        var generator = SeededGenerator(seed: 29)
        let sources = [gzip(Array(Self.payload.prefix(3_000))), gzip(Array(Self.payload.prefix(70_000)))]
        var fastAnswers = 0
        for round in 0..<3_000 {
            var body = sources[round % sources.count]
            switch round % 4 {
            case 0:  // flip a byte anywhere (header, stream or trailer)
                body[Int.random(in: 0..<body.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            case 1:  // cut it
                body.removeLast(Int.random(in: 1...body.count, using: &generator))
            case 2:  // add bytes after it
                body += (0..<Int.random(in: 1...20, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            default:  // untouched
                break
            }
            let limit = round % 7 == 0 ? Int.random(in: 1...80_000, using: &generator) : 200_000
            let fast = GzipFastPath.inflate(body, limit: limit)
            if fast != nil { fastAnswers += 1 }
            switch (Self.ingest(body, limit: limit), Self.zlib(body, limit: limit)) {
            case (.success(let ours), .success(let reference)):
                #expect(ours == reference, "round \(round)")
            case (.failure(let ours), .failure(let reference)):
                #expect(ours == reference, "round \(round)")
            case (let ours, let reference):
                Issue.record("round \(round): the ingest gave \(ours.map(\.count)), zlib \(reference.map(\.count))")
            }
        }
        // The untouched bodies (a quarter) within their limit take the fast path.
        #expect(fastAnswers >= 500)
    }
}

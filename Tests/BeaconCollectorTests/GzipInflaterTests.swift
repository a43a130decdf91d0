@testable import BeaconCollector
import BeaconWire
import Testing

/// The streaming inflater: whole output, any chunking of the input, and the cap exactly.
@Suite("Gzip inflater")
struct GzipInflaterTests {
    /// Inflates `compressed` fed in pieces of `chunk` bytes under `limit`.
    static func inflate(_ compressed: [UInt8], chunk: Int, limit: Int) throws -> [UInt8] {
        let inflater = try GzipInflater(limit: limit)
        var offset = 0
        while offset < compressed.count {
            let end = min(offset + chunk, compressed.count)
            try compressed[offset..<end].withUnsafeBytes { try inflater.feed($0) }
            offset = end
        }
        #expect(inflater.finished)
        return inflater.output
    }

    static let payload: [UInt8] = {
        var generator = SeededGenerator(seed: 11)
        // Words from a small vocabulary: compressible, but not a single run.
        let words = ["batch", "event", "messageId", "0190c2d4", "properties", "{", "}", "\"", ":", ","]
        var text = ""
        while text.utf8.count < 200_000 { text += words[Int(generator.nextUnit() * Double(words.count))] }
        return Array(text.utf8)
    }()

    @Test("Output is the payload for any chunking of the input", arguments: [1, 7, 512, 8192, 1 << 20])
    func anyChunking(chunk: Int) throws {
        let compressed = gzip(Self.payload)
        #expect(try Self.inflate(compressed, chunk: chunk, limit: 500_000) == Self.payload)
    }

    @Test("A payload of exactly the cap is accepted; one byte more is refused")
    func capIsExact() throws {
        for size in [0, 1, 65_535, 65_536, 65_537, 131_072, 200_000] {
            let payload = Array(Self.payload.prefix(size))
            let compressed = gzip(payload)
            #expect(try Self.inflate(compressed, chunk: 4096, limit: max(size, 1)) == payload, "size \(size)")
            if size > 0 {
                #expect(throws: GzipInflater.Failure.tooLarge, "size \(size)") {
                    try Self.inflate(compressed, chunk: 4096, limit: size - 1)
                }
            }
        }
    }

    @Test("A corrupt stream is refused with zlib's reason")
    func corrupt() throws {
        var compressed = gzip(Self.payload)
        compressed[20] ^= 0xFF
        compressed[21] ^= 0xFF
        #expect {
            try Self.inflate(compressed, chunk: 4096, limit: 500_000)
        } throws: { error in
            guard case .corrupt(let reason) = error as? GzipInflater.Failure else { return false }
            return !reason.isEmpty
        }
    }
}

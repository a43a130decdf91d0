@testable import BeaconCollector
import BeaconWire
import Testing

/// The collector's UTF-8 check against the standard library's, which it replaces on the
/// ingest path (`String(validating:as:)` copies the whole body to answer).
@Suite("UTF-8 validator")
struct UTF8ValidatorTests {
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer(UTF8Validator.isValid)
    }

    static func standardLibraryAccepts(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    @Test("UTF-8 edge cases: overlongs, surrogates, the top of the range, truncations")
    func utf8EdgeCases() {
        let valid: [[UInt8]] = [
            [], [0x00], [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], Array("a é ✓ 😀".utf8),
        ]
        let invalid: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xC2, 0x7F], [0xC2, 0xC0], [0xE0, 0x9F, 0xBF],
            [0xE0, 0xA0], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xF0, 0x9F, 0x98],
            [0xE2, 0x82, 0x41], [0xF0, 0x9F, 0x41, 0x80],
        ]
        for bytes in valid {
            #expect(Self.isValidUTF8(bytes), "\(bytes)")
            #expect(Self.standardLibraryAccepts(bytes), "\(bytes)")
        }
        for bytes in invalid {
            #expect(!Self.isValidUTF8(bytes), "\(bytes)")
            #expect(!Self.standardLibraryAccepts(bytes), "\(bytes)")
        }
    }

    @Test("Every one- and two-byte sequence gets the standard library's answer")
    func utf8ExhaustiveShort() {
        var mismatches: [[UInt8]] = []
        for first in 0...255 {
            let one = [UInt8(first)]
            if Self.isValidUTF8(one) != Self.standardLibraryAccepts(one) { mismatches.append(one) }
            for second in 0...255 {
                let two = [UInt8(first), UInt8(second)]
                if Self.isValidUTF8(two) != Self.standardLibraryAccepts(two) { mismatches.append(two) }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("Every three- and four-byte sequence around each lead byte's boundaries gets the standard library's answer")
    func utf8ExhaustiveBoundaries() {
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF]
        var mismatches: [[UInt8]] = []
        for lead in 0xC0...0xFF {
            for second in interesting {
                for third in interesting {
                    let three = [UInt8(lead), second, third]
                    if Self.isValidUTF8(three) != Self.standardLibraryAccepts(three) { mismatches.append(three) }
                    for fourth in interesting {
                        let four = three + [fourth]
                        if Self.isValidUTF8(four) != Self.standardLibraryAccepts(four) { mismatches.append(four) }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("Random bodies with non-ASCII bytes at every alignment of the 8-byte fast path")
    func utf8RandomAgainstStandardLibrary() {
        var generator = SeededGenerator(seed: 42)
        let pieces: [[UInt8]] = [
            Array("abcdefgh".utf8), [0x20], Array("é".utf8), Array("✓".utf8), Array("😀".utf8), [0x80], [0xC3], [0xED, 0xA0],
            [0xF4, 0x90], [0xE0, 0x80], [0xFF],
        ]
        var mismatches: [[UInt8]] = []
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(generator.nextUnit() * 12) {
                bytes += pieces[Int(generator.nextUnit() * Double(pieces.count))]
            }
            if Self.isValidUTF8(bytes) != Self.standardLibraryAccepts(bytes) { mismatches.append(bytes) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        // A long valid run, and the same with one bad byte at each position of the last words.
        let long = Array(String(repeating: "0123456789abcdef", count: 40).utf8) + Array("é".utf8)
        #expect(Self.isValidUTF8(long))
        for position in (long.count - 24)..<long.count {
            var broken = long
            broken[position] = 0xFF
            #expect(!Self.isValidUTF8(broken), "0xFF at \(position)")
        }
    }
}

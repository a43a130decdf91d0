@testable import BeaconCollector
import BeaconWire
import Testing

/// The byte-level timestamp check against `Timestamp(iso8601:)`, whose answer it must give
/// without making a `String`.
@Suite("Timestamp syntax")
struct TimestampSyntaxTests {
    @Test("Timestamps: the byte check accepts exactly what Timestamp(iso8601:) parses")
    func timestampSyntaxMatchesTimestamp() {
        let samples = [
            "2026-01-31T12:00:00.000Z", "2026-01-31T12:00:00Z", "2026-01-31 12:00:00z", "2026-01-31T12:00:00.1234567Z",
            "2026-01-31T12:00:00+02:00", "2026-01-31T12:00:00-0230", "2026-01-31T12:00:60Z", "2026-01-31T12:00:61Z",
            "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-00T00:00:00Z",
            "2026-01-31T24:00:00Z", "2026-01-31T23:60:00Z", "2026-01-31T12:00:00", "2026-01-31T12:00:00.Z",
            "2026-01-31T12:00:00+2:00", "2026-01-31T12:00:00+02:0", "2026-01-31T12:00:00+02:00Z", "2026-01-31",
            "yesterday", "", "2026-01-31t12:00:00Z", "+2026-01-31T12:00:00Z", "2026-1-31T12:00:00Z",
            "2026-01-31T12:00:00.000Z ", " 2026-01-31T12:00:00.000Z", "2026-02-30T12:00:00Z", "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999+99:99", "2026-01-31T12:00:00+02::00", "2026-01-31T12:00:00٫5Z",
        ]
        var generator = SeededGenerator(seed: 7)
        var inputs = samples
        let alphabet = Array("0123456789-:T .Zz+x".utf8)
        for sample in samples.prefix(6) {
            for _ in 0..<2000 {
                var bytes = Array(sample.utf8)
                let edits = 1 + Int(generator.nextUnit() * 3)
                for _ in 0..<edits where !bytes.isEmpty {
                    let position = Int(generator.nextUnit() * Double(bytes.count))
                    switch Int(generator.nextUnit() * 3) {
                    case 0: bytes[position] = alphabet[Int(generator.nextUnit() * Double(alphabet.count))]
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(alphabet[Int(generator.nextUnit() * Double(alphabet.count))], at: position)
                    }
                }
                inputs.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        var mismatches: [String] = []
        for input in inputs {
            let bytes = Array(input.utf8)
            if bytes.withUnsafeBufferPointer(TimestampSyntax.isValid) != (Timestamp(iso8601: input) != nil) {
                mismatches.append(input)
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(inputs.contains { Timestamp(iso8601: $0) != nil && !samples.contains($0) }, "the edits should keep some valid")
    }
}

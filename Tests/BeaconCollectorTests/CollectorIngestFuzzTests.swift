@testable import BeaconCollector
import BeaconTesting
import BeaconWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Seeded, bounded mutation fuzzing of the collector's ingest. Invariants for every case:
/// no crash; the answer is a 200 acceptance or a 4xx whose body reads as an `ErrorResponse`
/// with a code; and what a 200 acknowledged is stored: the count it names, and each
/// messageId with its exact bytes. A failure prints the seed and the case; run again with
/// `BEACON_FUZZ_SEED=<seed>` (and `BEACON_FUZZ_CASES=<n>` for a longer run).
@Suite("Collector ingest fuzzing")
struct CollectorIngestFuzzTests {
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["BEACON_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0xBEAC_0005
    }
    static var cases: Int {
        ProcessInfo.processInfo.environment["BEACON_FUZZ_CASES"].flatMap { Int($0) }.map { min(max($0, 1), 10_000_000) } ?? 3_000
    }

    /// The messageIds of an accepted body as UTF-8 bytes, read by Foundation (an oracle
    /// independent of the collector's parser), or by the collector's parser when Foundation
    /// cannot read the body.
    static func messageIds(of body: [UInt8]) -> [[UInt8]] {
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let batch = object["batch"] as? [[String: Any]]
        {
            return batch.map { Array(($0["messageId"] as? String ?? "").utf8) }
        }
        guard let parsed = try? BatchParser.parseBatch(body) else { return [] }
        return parsed.withText { text in parsed.items.map { Array(text.bytes($0.fields.messageId ?? FieldValue(kind: .null))) } }
    }

    @Test("Mutated bodies in-process: a 4xx JSON error or a 200 whose events are all stored, byte for byte")
    func inProcessFuzz() async throws {
        let seed = Self.seed
        var random = FuzzRandom(seed: seed)
        let ingest = try InProcessIngest()
        var expected = Set<[UInt8]>()
        var tally: [Int: Int] = [:]
        for index in 0..<Self.cases {
            let fuzzCase = IngestMutator.generate(&random)
            let (status, body) = await ingest.answer(fuzzCase)
            tally[status, default: 0] += 1
            let context = "seed \(seed) case \(index): \(fuzzCase)"
            if status == 200 {
                let answer = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
                let stored = answer?["stored"] as? Int
                let received = answer?["received"] as? Int
                let plain = fuzzCase.body  // the decompressed body is the generated one
                let ids = Self.messageIds(of: plain)
                #expect(received == ids.count, "\(context)")
                let fresh = Set(ids).subtracting(expected)
                #expect(stored == fresh.count, "stored \(String(describing: stored)), expected \(fresh.count): \(context)")
                #expect(Set(ids).count == ids.count, "an accepted batch repeats an id: \(context)")
                #expect(ids.allSatisfy { !$0.isEmpty && !$0.contains(where: { $0 < 0x20 }) }, "\(context)")
                expected.formUnion(ids)
            } else {
                #expect((400..<500).contains(status), "status \(status): \(context)")
                let json = try? JSONDecoder().decode(JSONValue.self, from: Data(body))
                let response = json.flatMap(ErrorResponse.init(json:))
                #expect(response?.error?.isEmpty == false, "not an ErrorResponse: \(String(decoding: body.prefix(200), as: UTF8.self)) \(context)")
                #expect(body.count < 64 * 1024, "answer of \(body.count) bytes: \(context)")
            }
            if index % 500 == 499 {
                // Every acknowledged id is in the store with its exact bytes, and nothing else is.
                let storedIds = try await ingest.core.store.messageIdBytes()
                #expect(Set(storedIds) == expected, "store differs after \(context)")
                #expect(storedIds.count == expected.count, "\(context)")
            }
        }
        let storedIds = try await ingest.core.store.messageIdBytes()
        #expect(Set(storedIds) == expected, "seed \(seed)")
        #expect(storedIds.count == expected.count, "seed \(seed)")
        // The generator reaches both sides.
        #expect(tally[200, default: 0] > Self.cases / 20, "\(tally)")
        #expect(tally.filter { $0.key >= 400 }.values.reduce(0, +) > Self.cases / 5, "\(tally)")
    }

    @Test("Mutated bodies over real HTTP: the same invariants, and the collector keeps serving")
    func httpFuzz() async throws {
        let seed = Self.seed ^ 0x4854_5450
        var random = FuzzRandom(seed: seed)
        let cases = (0..<150).map { _ in IngestMutator.generate(&random) }
        try await withCollector { collector, port in
            let acknowledged = try await withClient(port: port) { client in
                var acknowledged = 0
                var expected = Set<[UInt8]>()
                for (index, fuzzCase) in cases.enumerated() {
                    let context = "seed \(seed) case \(index): \(fuzzCase)"
                    let answer = try await call(
                        client, .post, "/v1/batch", body: fuzzCase.gzipped ? gzip(fuzzCase.body) : fuzzCase.body,
                        headers: fuzzCase.gzipped ? [.contentEncoding: "gzip"] : [:])
                    if answer.status == 200 {
                        let ids = Self.messageIds(of: fuzzCase.body)
                        let fresh = Set(ids).subtracting(expected)
                        #expect(answer.json["stored"] as? Int == fresh.count, "\(context)")
                        expected.formUnion(ids)
                        acknowledged += fresh.count
                    } else {
                        #expect((400..<500).contains(answer.status), "status \(answer.status): \(context)")
                        let json = try? JSONDecoder().decode(JSONValue.self, from: Data(answer.text.utf8))
                        #expect(json.flatMap(ErrorResponse.init(json:))?.error?.isEmpty == false, "\(answer.text.prefix(200)) \(context)")
                    }
                }
                return acknowledged
            }
            #expect(try await collector.storedCount() == acknowledged, "seed \(seed)")
            #expect(collector.stats().stored == acknowledged, "seed \(seed)")
        }
    }
}

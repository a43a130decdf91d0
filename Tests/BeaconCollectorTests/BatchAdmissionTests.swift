@testable import BeaconCollector
import BeaconWire
import Testing

/// Admission and parsing stay bounded however many elements a body holds.
@Suite("Batch admission bounds")
struct BatchAdmissionTests {
    @Test("A refusal describes at most the listed rejections and counts the rest by code")
    func refusalIsCapped() throws {
        let elements = (0..<5_000).map { $0 % 2 == 0 ? "1" : #"{"event":"E","userId":"u"}"# }
        let parsed = try BatchParser.parseBatch(Array(#"{"batch":[\#(elements.joined(separator: ","))]}"#.utf8))
        guard case .refuse(let refusal) = BatchAdmission.decide(parsed, defaultType: .track, maxEventBytes: 32 * 1024) else {
            Issue.record("a batch of invalid events was accepted")
            return
        }
        #expect(refusal.listed.count == ErrorResponse.maximumListedRejections)
        #expect(refusal.listed.map(\.index) == (0..<100).map { $0 })
        #expect(refusal.listed.allSatisfy { !$0.reason.isEmpty })
        #expect(refusal.total == 5_000)
        #expect(refusal.countsByCode == ["event_not_object": 2_500, "missing_message_id": 2_500])
    }

    @Test("Past the limit the parser counts elements without keeping them, and still checks the JSON")
    func parserKeepsAtMostTheLimit() throws {
        let body = Array(#"{"batch":[\#(Array(repeating: "1", count: 1_000).joined(separator: ","))]}"#.utf8)
        let parsed = try BatchParser.parseBatch(body, keepingAtMost: 10)
        #expect(parsed.items.count == 10)
        #expect(parsed.elementCount == 1_000)
        let unlimited = try BatchParser.parseBatch(body)
        #expect(unlimited.items.count == 1_000)
        #expect(unlimited.elementCount == 1_000)
        #expect(throws: CollectorError.self) {
            try BatchParser.parseBatch(Array(#"{"batch":[1,1,1,1,1,}"#.utf8), keepingAtMost: 2)
        }
    }
}

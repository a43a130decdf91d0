import BeaconTesting
import BeaconCollector
import BeaconWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A small request cannot make the collector do or answer much: the number of events per
/// request is bounded, and a refusal lists at most ``ErrorResponse/maximumListedRejections``.
@Suite("Collector amplification")
struct CollectorAmplificationTests {
    /// `{"batch":[1,1,…]}` with `count` ones: about 2 bytes per element, 536 bytes gzipped.
    static func onesBody(_ count: Int) -> [UInt8] {
        var body = Array(#"{"batch":["#.utf8)
        body.reserveCapacity(count * 2 + 16)
        for index in 0..<count {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(UInt8(ascii: "1"))
        }
        body += Array("]}".utf8)
        return body
    }

    @Test("By default a batch of 249k non-events is refused 413 too_many_events, with a small answer")
    func defaultEventCountLimit() async throws {
        let body = gzip(Self.onesBody(249_000))
        #expect(body.count < 2_000)
        try await withCollector { collector, port in
            let answer = try await withClient(port: port) {
                try await call($0, .post, "/v1/batch", body: body, headers: [.contentEncoding: "gzip"])
            }
            #expect(answer.status == 413, "\(answer.text.prefix(300))")
            #expect(answer.errorCode == "too_many_events")
            #expect(answer.text.utf8.count < 1_000)
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("A batch of the default limit's size in valid events is still accepted")
    func atTheLimit() async throws {
        let limit = CollectorLimits.defaultMaxEventsPerBatch
        let events = (0..<limit).map { #"{"event":"E","messageId":"m\#($0)","userId":"u"}"# }
        let body = batchBody(events)
        #expect(body.count <= CollectorLimits().maxRequestBytes)
        try await withCollector { collector, port in
            let answer = try await withClient(port: port) { try await call($0, .post, "/v1/batch", body: body) }
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.json["stored"] as? Int == limit)
            let over = try await withClient(port: port) {
                try await call($0, .post, "/v1/batch", body: batchBody(events + [#"{"event":"E","messageId":"x","userId":"u"}"#]))
            }
            #expect(over.status == 413)
            #expect(over.errorCode == "too_many_events")
            #expect(try await collector.storedCount() == limit)
        }
    }

    @Test("Without a count limit, 249k invalid events are answered with 100 listed and the count of all")
    func listedRejectionsAreCapped() async throws {
        let body = gzip(Self.onesBody(249_000))
        try await withCollector(CollectorConfiguration(limits: CollectorLimits(maxEventsPerBatch: nil))) { collector, port in
            let answer = try await withClient(port: port) {
                try await call($0, .post, "/v1/batch", body: body, headers: [.contentEncoding: "gzip"])
            }
            #expect(answer.status == 400)
            #expect(answer.errorCode == "invalid_events")
            #expect(answer.rejected.count == ErrorResponse.maximumListedRejections)
            #expect(answer.json["rejectedCount"] as? Int == 249_000)
            #expect(answer.text.utf8.count < 32 * 1024)
            #expect(collector.stats().rejected == 249_000)
        }
    }
}

import BeaconCollector
import BeaconTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What other vendors' Segment clients send that Segment's own does not (issue 22,
/// finding 13; VendorClientTests runs the libraries themselves).
@Suite("Collector: other vendors' client quirks")
struct CollectorClientQuirksTests {
    static let apiKey = HTTPField.Name("X-API-Key")!
    static let event = #"{"type":"track","event":"E","messageId":"q-1","userId":"u"}"#

    @Test("June's client posts to /sdk/batch")
    func sdkBatchIsAnAlias() async throws {
        try await withCollector { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/sdk/batch", body: batchBody([Self.event]))
            }
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try await collector.storedMessageIds() == ["q-1"])
        }
    }

    @Test("FindHotel's client sends the write key in X-API-Key; Authorization still wins when both come")
    func apiKeyHeaderCarriesTheWriteKey() async throws {
        var configuration = CollectorConfiguration()
        configuration.writeKeys = ["wk-1"]
        try await withCollector(configuration) { collector, port in
            let answers = try await withClient(port: port) { client in
                [
                    try await call(client, .post, "/v1/batch", body: batchBody([Self.event]), headers: [Self.apiKey: "wk-1"]),
                    try await call(client, .post, "/v1/batch", body: batchBody([Self.event]), headers: [Self.apiKey: "wrong"]),
                    try await call(
                        client, .post, "/v1/batch", body: batchBody([Self.event]),
                        headers: [.authorization: basicAuthorization("wrong"), Self.apiKey: "wk-1"]),
                ]
            }
            #expect(answers.map(\.status) == [200, 401, 401], "\(answers.map(\.text))")
            #expect(try await collector.storedMessageIds() == ["q-1"])
        }
    }

    @Test("a timestamp in whole milliseconds since 1970 is taken; other numbers are refused")
    func epochMillisecondTimestamps() async throws {
        @Sendable func event(_ id: String, _ timestamp: String) -> String {
            #"{"type":"track","event":"E","messageId":"\#(id)","userId":"u","timestamp":\#(timestamp)}"#
        }
        try await withCollector { collector, port in
            let good = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/batch", body: batchBody([event("ms", "1764000000000"), event("zero", "0")]))
            }
            #expect(good.status == 200, "\(good.text)")
            for bad in ["-1", "1.5", "1e12", "253402300800000", "99999999999999999999"] {
                let answer = try await withClient(port: port) { client in
                    try await call(client, .post, "/v1/batch", body: batchBody([event("bad", bad)]))
                }
                #expect(answer.status == 400 && answer.rejected.first?["code"] as? String == "invalid_timestamp", "\(bad): \(answer.text)")
            }
            #expect(Set(try await collector.storedMessageIds()) == ["ms", "zero"])
        }
    }

    @Test("every refusal carries `code` beside `error`, as Segment's client library reads it")
    func refusalsCarryCode() async throws {
        try await withCollector { _, port in
            let answers = try await withClient(port: port) { client in
                [
                    try await call(client, .post, "/v1/batch", body: bytes("{not json")),
                    try await call(client, .post, "/v1/batch", body: batchBody([#"{"type":"track","messageId":"m"}"#])),
                ]
            }
            for answer in answers {
                #expect(answer.status == 400)
                #expect(answer.json["code"] as? String == answer.errorCode && answer.errorCode != nil, "\(answer.text)")
            }
        }
    }
}

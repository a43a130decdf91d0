import BeaconCollector
import BeaconTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Every kind of bad request gets its own 4xx and JSON error code, and the collector keeps serving.
@Suite("Collector bad requests")
struct CollectorBadRequestTests {
    /// One bad request and what it must be told.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var method: HTTPRequest.Method = .post
        var path = "/v1/batch"
        var body: [UInt8]?
        var headers: HTTPFields = [.authorization: basicAuthorization("good-key")]
        var status: Int
        /// The top-level `error`, or for `invalid_events` the first rejected event's `code`.
        var code: String
        var description: String { name }
    }

    static let valid = trackJSON(messageId: "v-1")

    static let cases: [Case] = [
        Case(name: "not JSON", body: bytes("batch=1&x=2"), status: 400, code: "invalid_json"),
        Case(name: "truncated JSON", body: bytes(#"{"batch":[{"type":"track""#), status: 400, code: "invalid_json"),
        Case(name: "empty body", body: [], status: 400, code: "empty_body"),
        Case(name: "invalid UTF-8", body: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D], status: 400, code: "invalid_utf8"),
        Case(name: "body is an array", body: bytes("[\(valid)]"), status: 400, code: "body_not_object"),
        Case(name: "batch missing", body: bytes(#"{"events":[\#(valid)]}"#), status: 400, code: "missing_batch"),
        Case(name: "batch not an array", body: bytes(#"{"batch":{"type":"track"}}"#), status: 400, code: "batch_not_array"),
        Case(name: "empty batch", body: bytes(#"{"batch":[]}"#), status: 400, code: "empty_batch"),
        Case(name: "item not an object", body: batchBody([valid, #""just a string""#]), status: 400, code: "event_not_object"),
        Case(
            name: "event name is a number",
            body: batchBody([#"{"type":"track","event":42,"messageId":"m-1","userId":"u"}"#]), status: 400,
            code: "wrong_type"),
        Case(
            name: "properties not an object",
            body: batchBody([#"{"type":"track","event":"E","properties":[1,2],"messageId":"m-1","userId":"u"}"#]),
            status: 400, code: "wrong_type"),
        Case(
            name: "missing messageId", body: batchBody([#"{"type":"track","event":"E","userId":"u"}"#]), status: 400,
            code: "missing_message_id"),
        Case(
            name: "track without event name", body: batchBody([#"{"type":"track","messageId":"m-1","userId":"u"}"#]),
            status: 400, code: "missing_event_name"),
        Case(
            name: "neither userId nor anonymousId", body: batchBody([trackJSON(messageId: "m-1", userId: nil)]),
            status: 400, code: "missing_identity"),
        Case(
            name: "unknown type", body: batchBody([#"{"type":"purchase","messageId":"m-1","userId":"u"}"#]),
            status: 400, code: "unknown_type"),
        Case(
            name: "bad timestamp", body: batchBody([trackJSON(messageId: "m-1", extra: #","timestamp":"yesterday""#)]),
            status: 400, code: "invalid_timestamp"),
        Case(
            name: "oversize event",
            body: batchBody([trackJSON(messageId: "m-1", extra: #","pad":"\#(String(repeating: "x", count: 33 * 1024))""#)]),
            status: 400, code: "event_too_large"),
        Case(
            name: "repeated messageId in one batch",
            body: batchBody([trackJSON(messageId: "same"), trackJSON(messageId: "same")]), status: 400,
            code: "duplicate_message_id"),
        Case(
            name: "oversize body",
            body: batchBody((0..<40).map { trackJSON(messageId: "big-\($0)", extra: #","pad":"\#(String(repeating: "y", count: 14_000))""#) }),
            status: 413, code: "request_too_large"),
        Case(
            name: "gzip bomb", body: gzip(Array(repeating: 0x20, count: 20 * 1024 * 1024)),
            headers: [.authorization: basicAuthorization("good-key"), .contentEncoding: "gzip"], status: 413,
            code: "decompressed_too_large"),
        Case(
            name: "corrupt gzip", body: bytes("this is not gzip at all"),
            headers: [.authorization: basicAuthorization("good-key"), .contentEncoding: "gzip"], status: 400,
            code: "invalid_gzip"),
        Case(
            name: "truncated gzip", body: Array(gzip(batchBody([valid])).dropLast(12)),
            headers: [.authorization: basicAuthorization("good-key"), .contentEncoding: "gzip"], status: 400,
            code: "invalid_gzip"),
        Case(
            name: "unsupported Content-Encoding", body: batchBody([valid]),
            headers: [.authorization: basicAuthorization("good-key"), .contentEncoding: "br"], status: 415,
            code: "unsupported_content_encoding"),
        Case(
            name: "wrong write key in the header", body: batchBody([valid]),
            headers: [.authorization: basicAuthorization("bad-key")], status: 401, code: "invalid_write_key"),
        Case(
            name: "wrong write key in the body", body: batchBody([valid], extra: #","writeKey":"bad-key""#), headers: [:],
            status: 401, code: "invalid_write_key"),
        Case(name: "no write key", body: batchBody([valid]), headers: [:], status: 401, code: "missing_write_key"),
        Case(
            name: "malformed Authorization", body: batchBody([valid]), headers: [.authorization: "Basic %%%not-base64"],
            status: 400, code: "malformed_authorization"),
        Case(
            name: "unknown Authorization scheme", body: batchBody([valid]), headers: [.authorization: "Token abc"],
            status: 400, code: "malformed_authorization"),
        Case(
            name: "too many events", body: batchBody((0..<6).map { trackJSON(messageId: "many-\($0)") }), status: 413,
            code: "too_many_events"),
        Case(name: "wrong method", method: .get, path: "/v1/batch", status: 405, code: "method_not_allowed"),
        Case(name: "unknown route", path: "/v2/batch", body: batchBody([valid]), status: 404, code: "not_found"),
        Case(
            name: "invalid single event on /v1/track", path: "/v1/track",
            body: bytes(#"{"event":"E","messageId":"t-1"}"#), status: 400, code: "missing_identity"),
    ]

    static let configuration = CollectorConfiguration(
        writeKeys: ["good-key"], limits: CollectorLimits(maxEventsPerBatch: 5))

    @Test("Each bad request gets its own clear JSON error", arguments: cases)
    func badRequest(_ badCase: Case) async throws {
        try await withCollector(Self.configuration) { collector, port in
            try await withClient(port: port) { client in
                let answer = try await call(client, badCase.method, badCase.path, body: badCase.body, headers: badCase.headers)
                #expect(answer.status == badCase.status, "\(badCase.name): \(answer.text)")
                #expect(answer.headers[.contentType] == "application/json")
                let message = answer.json["message"] as? String ?? ""
                #expect(message.count > 20, "\(badCase.name) needs a readable message: \(answer.text)")
                if answer.errorCode == "invalid_events" {
                    #expect(answer.rejected.first?["code"] as? String == badCase.code, "\(badCase.name): \(answer.text)")
                    #expect((answer.rejected.first?["reason"] as? String ?? "").count > 20)
                } else {
                    #expect(answer.errorCode == badCase.code, "\(badCase.name): \(answer.text)")
                }
                // The same connection, and the server, keep serving.
                let health = try await call(client, .get, "/health")
                #expect(health.status == 200)
            }
            #expect(try await collector.storedCount() == 0)
            let stats = collector.stats()
            #expect(stats.requests == 2)
            let counted = (stats.errorsByCode[badCase.code] ?? 0) + (stats.rejectedByReason[badCase.code] ?? 0)
            #expect(counted >= 1, "\(badCase.name) is not counted: \(stats)")
        }
    }

    @Test("The cases cover at least 15 distinct error codes")
    func distinctCodes() {
        #expect(Set(Self.cases.map(\.code)).count >= 15)
    }

    @Test("A partial batch stores nothing, lists each invalid event, and the rest succeed when resent")
    func partialBatch() async throws {
        let events = [
            trackJSON(messageId: "p-0"),
            #"{"type":"track","messageId":"p-1","userId":"u"}"#,
            trackJSON(messageId: "p-2"),
            trackJSON(messageId: "p-3", userId: nil),
            trackJSON(messageId: "p-4"),
            trackJSON(messageId: "p-2"),
        ]
        try await withCollector { collector, port in
            try await withClient(port: port) { client in
                let refused = try await call(client, .post, "/v1/batch", body: batchBody(events))
                #expect(refused.status == 400)
                #expect(refused.errorCode == "invalid_events")
                #expect(refused.rejected.map { $0["index"] as? Int } == [1, 3, 5])
                #expect(refused.rejected.map { $0["messageId"] as? String } == ["p-1", "p-3", "p-2"])
                #expect(refused.rejected.map { $0["code"] as? String } == ["missing_event_name", "missing_identity", "duplicate_message_id"])
                #expect(try await collector.storedCount() == 0)

                let resent = try await call(client, .post, "/v1/batch", body: batchBody([events[0], events[2], events[4]]))
                #expect(resent.status == 200)
                #expect(resent.json["stored"] as? Int == 3)
            }
            let stats = collector.stats()
            #expect(stats.rejected == 3)
            #expect(stats.rejectedByReason == ["missing_event_name": 1, "missing_identity": 1, "duplicate_message_id": 1])
            #expect(stats.errorsByCode["invalid_events"] == 1)
            #expect(stats.stored == 3)
        }
    }

    @Test("After a run of bad requests the collector still serves and /v1/stats counts them")
    func serverSurvivesAllCases() async throws {
        try await withCollector(Self.configuration) { collector, port in
            for badCase in Self.cases {
                _ = try await withClient(port: port) { client in
                    try await call(client, badCase.method, badCase.path, body: badCase.body, headers: badCase.headers)
                }
            }
            let stats = try await withClient(port: port) { client in
                let health = try await call(client, .get, "/health")
                #expect(health.status == 200)
                let ok = try await call(client, .post, "/v1/batch", body: batchBody([Self.valid]), headers: [.authorization: basicAuthorization("good-key")])
                #expect(ok.status == 200)
                return try await call(client, .get, "/v1/stats")
            }
            #expect(stats.status == 200)
            let errors = stats.json["errorsByCode"] as? [String: Int] ?? [:]
            #expect(errors.values.reduce(0, +) == Self.cases.count)
            #expect(stats.json["stored"] as? Int == 1)
            for key in ["received", "stored", "duplicates", "rejected", "rejectedByReason", "requests", "receivedPerSecond"] {
                #expect(stats.json[key] != nil, "stats lacks \(key)")
            }
        }
    }
}

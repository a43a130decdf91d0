import Beacon
import BeaconWire
import CZlib
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Testing

/// The sender against a real Hummingbird server on 127.0.0.1 that records each request
/// and answers from a script.
@Suite("HTTPSender over loopback")
struct HTTPSenderTests {
    @Test("a 200 delivers; the body is a gzipped Segment batch with every messageId in order")
    func deliversGzippedSegmentBatch() async throws {
        try await ScriptedServer.run([.status(200)]) { server in
            let sender = try HTTPSender(endpoint: server.endpoint, writeKey: "wk_test")
            let batch = OutgoingBatch.sample(count: 25)

            let result = await sender.send(batch)

            #expect(result.outcome == .delivered)
            #expect(result.status == 200)
            let request = try #require(server.requests.first)
            #expect(server.requests.count == 1)
            #expect(request.method == "POST")
            #expect(request.path == "/v1/batch")
            #expect(request.headers["content-encoding"] == "gzip")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["authorization"] == "Basic " + Data("wk_test:".utf8).base64EncodedString())
            #expect(request.headers["user-agent"]?.hasPrefix("beacon-swift/") == true)
            #expect(request.headers["user-agent"]?.hasSuffix("(Linux)") == true)
            #expect(result.wireBytes == request.body.count)
            #expect(Array(request.body.prefix(2)) == [0x1F, 0x8B])
            let decoded = try JSONDecoder().decode(Batch.self, from: Data(try inflate(request.body)))
            #expect(decoded.batch.map(\.messageId) == batch.events.map(\.messageId))
            #expect(decoded.batch.allSatisfy { $0.type == "track" && $0.name == "Page Viewed" })
            #expect(decoded.sentAt != nil)
        }
    }

    @Test("with gzip off the body is plain JSON and carries no Content-Encoding")
    func sendsPlainJSONWhenGzipIsOff() async throws {
        try await ScriptedServer.run([.status(200)]) { server in
            let configuration = try HTTPSenderConfiguration(endpoint: server.endpoint, writeKey: nil, gzip: false)
            let sender = HTTPSender(configuration: configuration)
            let batch = OutgoingBatch.sample(count: 3)

            let result = await sender.send(batch)

            #expect(result.outcome == .delivered)
            let request = try #require(server.requests.first)
            #expect(request.headers["content-encoding"] == nil)
            #expect(request.headers["authorization"] == nil)
            let decoded = try JSONDecoder().decode(Batch.self, from: Data(request.body))
            #expect(decoded.batch.map(\.messageId) == batch.events.map(\.messageId))
        }
    }

    @Test("429 with Retry-After is retryable after that delay")
    func tooManyRequestsHonoursRetryAfter() async throws {
        try await ScriptedServer.run([.status(429, headers: ["Retry-After": "7"], body: #"{"message":"slow down"}"#)]) { server in
            let result = try await HTTPSender(endpoint: server.endpoint, writeKey: "k").send(.sample(count: 2))
            #expect(result.status == 429)
            #expect(result.outcome == .retryable(reason: "HTTP 429 Too Many Requests: slow down", retryAfter: .seconds(7)))
        }
    }

    @Test("503 with an HTTP-date Retry-After waits until that date")
    func retryAfterDateIsRelativeToNow() async throws {
        let now = Timestamp(millisecondsSince1970: 784_111_777_000 - 42_000)  // 42 s before the date below
        let header = ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]
        try await ScriptedServer.run([.status(503, headers: header)]) { server in
            let configuration = try HTTPSenderConfiguration(endpoint: server.endpoint, writeKey: "k")
            let sender = HTTPSender(configuration: configuration, now: { now })
            let result = await sender.send(.sample(count: 1))
            #expect(result.outcome == .retryable(reason: "HTTP 503 Service Unavailable", retryAfter: .seconds(42)))
        }
    }

    @Test("500 is retryable with the status and the server's message")
    func serverErrorIsRetryable() async throws {
        try await ScriptedServer.run([.status(500, body: #"{"error":"storage","message":"disk full"}"#)]) { server in
            let result = try await HTTPSender(endpoint: server.endpoint, writeKey: "k").send(.sample(count: 2))
            #expect(result.status == 500)
            #expect(result.outcome == .retryable(reason: "HTTP 500 Internal Server Error: disk full", retryAfter: nil))
        }
    }

    @Test("401 is unauthorized with the server's message")
    func unauthorized() async throws {
        try await ScriptedServer.run([.status(401, body: #"{"message":"unknown write key"}"#)]) { server in
            let result = try await HTTPSender(endpoint: server.endpoint, writeKey: "bad").send(.sample(count: 2))
            #expect(result.outcome == .unauthorized(reason: "HTTP 401 Unauthorized: unknown write key"))
        }
    }

    @Test("413 is tooLarge")
    func payloadTooLarge() async throws {
        try await ScriptedServer.run([.status(413)]) { server in
            let result = try await HTTPSender(endpoint: server.endpoint, writeKey: "k").send(.sample(count: 2))
            #expect(result.outcome == .tooLarge)
            #expect(result.status == 413)
        }
    }

    @Test("400 with a rejected list names those events with their reasons")
    func badRequestWithRejectedList() async throws {
        let batch = OutgoingBatch.sample(count: 5)
        let ids = batch.events.map(\.messageId)
        let body = #"{"error":"invalid_events","message":"2 events refused","rejected":["#
            + #"{"index":3,"messageId":"\#(ids[3])","reason":"event name is empty"},"#
            + #"{"index":1,"reason":"properties too large"}]}"#
        try await ScriptedServer.run([.status(400, body: body)]) { server in
            let result = try await HTTPSender(endpoint: server.endpoint, writeKey: "k").send(batch)
            #expect(result.status == 400)
            #expect(result.outcome == .rejected([
                EventRejection(index: 1, messageId: ids[1], reason: "HTTP 400: properties too large"),
                EventRejection(index: 3, messageId: ids[3], reason: "HTTP 400: event name is empty"),
            ]))
        }
    }

    @Test("concurrent sends from several tasks each get their own answer")
    func concurrentSends() async throws {
        let statuses = [200, 500, 200, 413, 200, 401, 200, 429]
        try await ScriptedServer.run(statuses.map { .status($0) }) { server in
            let sender = try HTTPSender(endpoint: server.endpoint, writeKey: "k")
            let batches = (0..<statuses.count).map { OutgoingBatch.sample(count: 4, id: Int64($0)) }
            let results = await withTaskGroup(of: SendResult.self) { group in
                for batch in batches { group.addTask { await sender.send(batch) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.compactMap(\.status).sorted() == statuses.sorted())
            var received: [String] = []
            for request in server.requests {
                received += try JSONDecoder().decode(Batch.self, from: Data(inflate(request.body))).batch.map(\.messageId)
            }
            #expect(Set(received) == Set(batches.flatMap { $0.events.map(\.messageId) }))
        }
    }
}

// MARK: - Test fixtures

extension OutgoingBatch {
    /// A batch of `count` typical page-view events.
    static func sample(count: Int, id: Int64 = 1) -> OutgoingBatch {
        let events = (0..<count).map { index in
            let event = Event(
                name: "Page Viewed",
                properties: ["path": .string("/docs/\(index)"), "referrer": "https://example.com/", "duration_ms": .int(index * 17)],
                anonymousId: "anon-\(index % 7)",
                context: ["library": ["name": "beacon-swift", "version": "0.1.0"], "locale": "en-GB"]
            )
            return QueuedEvent(sequence: Int64(index), messageId: event.messageId, name: event.name ?? "", payload: event.jsonBytes)
        }
        return OutgoingBatch(id: id, events: events, attempt: 1)
    }
}


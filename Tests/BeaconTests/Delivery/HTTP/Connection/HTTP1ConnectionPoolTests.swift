import Beacon
import BeaconWire
import Foundation
import Testing

/// The lean HTTP/1.1 path under ``HTTPSender`` for `http://` endpoints, against a server
/// that answers with raw bytes: kept-alive connections, closes at every moment, framing
/// it must read (chunked, informational answers), bodies it must not read forever.
@Suite("HTTP/1.1 connections of the sender", .timeLimit(.minutes(1)))
struct HTTP1ConnectionPoolTests {
    /// 200 with `{"success":true}` (16 bytes).
    static let ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{\"success\":true}"

    static func sender(_ server: RawScriptServer, timeout: Duration = .seconds(5)) throws -> HTTPSender {
        HTTPSender(configuration: try HTTPSenderConfiguration(endpoint: server.endpoint, writeKey: "k", requestTimeout: timeout))
    }

    @Test("batches go one after another over one kept-alive connection")
    func keepsTheConnection() async throws {
        let server = try RawScriptServer { _ in .answer(Self.ok) }
        defer { server.stop() }
        let sender = try Self.sender(server)
        for id in 1...5 {
            #expect(await sender.send(.sample(count: 2, id: Int64(id))).outcome == .delivered)
        }
        #expect(server.arrivals.map(\.rank) == [0, 1, 2, 3, 4])
        #expect(server.connections == 1)
        let head = try #require(server.arrivals.first?.head)
        #expect(head.hasPrefix("POST /v1/batch HTTP/1.1\r\n"))
        #expect(head.contains("Host: 127.0.0.1:\(server.port)"))
        #expect(head.contains("Content-Encoding: gzip"))
        #expect(head.contains("Content-Length: "))
    }

    @Test("an answer with Connection: close is read, and the next batch opens a new connection")
    func connectionCloseIsHonoured() async throws {
        let closing = Self.ok.replacingOccurrences(of: "Content-Type", with: "Connection: close\r\nContent-Type")
        let server = try RawScriptServer { _ in .answer(closing, close: true) }
        defer { server.stop() }
        let sender = try Self.sender(server)
        for id in 1...3 {
            #expect(await sender.send(.sample(count: 1, id: Int64(id))).outcome == .delivered)
        }
        #expect(server.connections == 3)
        #expect(server.arrivals.allSatisfy { $0.rank == 0 })
    }

    @Test("a kept-alive connection the server dropped unanswered is tried once more on a new one")
    func reusedConnectionClosedIsRetriedOnce() async throws {
        // The second request on the first connection is dropped, as a server closing an
        // idle connection at the moment the request arrives would.
        let server = try RawScriptServer { arrival in
            arrival.connection == 0 && arrival.rank == 1 ? .closeSilently : .answer(Self.ok)
        }
        defer { server.stop() }
        let sender = try Self.sender(server)
        #expect(await sender.send(.sample(count: 1, id: 1)).outcome == .delivered)
        #expect(await sender.send(.sample(count: 1, id: 2)).outcome == .delivered)
        #expect(server.connections == 2)
        #expect(server.arrivals.map { [$0.connection, $0.rank] } == [[0, 0], [0, 1], [1, 0]])
    }

    @Test("a new connection dropped unanswered is a lost connection, not tried again")
    func freshConnectionClosedIsLost() async throws {
        let server = try RawScriptServer { _ in .closeSilently }
        defer { server.stop() }
        let sender = try Self.sender(server)
        let result = await sender.send(.sample(count: 1))
        #expect(result.outcome == .retryable(reason: "connection lost (reset or closed by the destination)", retryAfter: nil))
        #expect(server.arrivals.count == 1, "one request, no retry inside the client: backoff is the batcher's")
    }

    @Test("a chunked error body is read: the 400 names the refused event")
    func chunkedBodyIsRead() async throws {
        let batch = OutgoingBatch.sample(count: 2)
        let refused = batch.events[1].messageId
        let json = #"{"success":false,"rejected":[{"messageId":"\#(refused)","reason":"bad"}]}"#
        let size = String(json.utf8.count, radix: 16)
        let answer = "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n\(json)\r\n0\r\n\r\n"
        let server = try RawScriptServer { _ in .answer(answer) }
        defer { server.stop() }
        let result = await (try Self.sender(server)).send(batch)
        guard case .rejected(let rejections) = result.outcome else {
            Issue.record("expected a rejection, got \(result.outcome)")
            return
        }
        #expect(rejections.map(\.messageId) == [refused])
        #expect(result.status == 400)
    }

    @Test("an informational 100 before the answer is skipped")
    func informationalAnswerIsSkipped() async throws {
        let server = try RawScriptServer { _ in .answer("HTTP/1.1 100 Continue\r\n\r\n" + Self.ok) }
        defer { server.stop() }
        let sender = try Self.sender(server)
        #expect(await sender.send(.sample(count: 1, id: 1)).outcome == .delivered)
        #expect(await sender.send(.sample(count: 1, id: 2)).outcome == .delivered)
        #expect(server.connections == 1)
    }

    @Test("an endless response body is cut at the limit and the connection dropped")
    func endlessBodyIsCut() async throws {
        let server = try RawScriptServer { arrival in
            arrival.connection == 0
                ? .endlessBody(head: "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n") : .answer(Self.ok)
        }
        defer { server.stop() }
        let sender = try Self.sender(server, timeout: .seconds(30))
        let started = ContinuousClock.now
        let result = await sender.send(.sample(count: 1, id: 1))
        #expect(result.status == 500)
        #expect(result.outcome == .retryable(reason: "HTTP 500 Internal Server Error", retryAfter: nil))
        #expect(started.duration(to: .now) < .seconds(20), "ended by the body limit, not by the 30 s deadline")
        #expect(await sender.send(.sample(count: 1, id: 2)).outcome == .delivered)
        #expect(server.connections == 2)
    }

    @Test("a body that stalls after the head times out at the deadline")
    func stalledBodyTimesOut() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"succ"
        let server = try RawScriptServer { _ in .stall(after: head) }
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = await (try Self.sender(server, timeout: .milliseconds(500))).send(.sample(count: 1))
        #expect(result.outcome == .retryable(reason: "timed out waiting for the destination", retryAfter: nil))
        #expect(started.duration(to: .now) >= .milliseconds(500))
    }

    @Test("an answer that is not HTTP is a bad response")
    func garbageIsABadResponse() async throws {
        let server = try RawScriptServer { _ in .answer("HELLO THERE\r\n\r\n", close: true) }
        defer { server.stop() }
        let result = await (try Self.sender(server)).send(.sample(count: 1))
        guard case .retryable(let reason, nil) = result.outcome else {
            Issue.record("expected a retryable failure, got \(result.outcome)")
            return
        }
        #expect(reason.hasPrefix("bad HTTP response") || reason.hasPrefix("connection lost"), "\(reason)")
        #expect(result.status == nil)
    }

    @Test("bytes nobody asked for spoil only their connection")
    func unsolicitedBytesDropTheConnection() async throws {
        // The first answer carries a second, unasked-for response behind it.
        let server = try RawScriptServer { arrival in
            arrival.connection == 0 && arrival.rank == 0 ? .answer(Self.ok + Self.ok) : .answer(Self.ok)
        }
        defer { server.stop() }
        let sender = try Self.sender(server)
        #expect(await sender.send(.sample(count: 1, id: 1)).outcome == .delivered)
        #expect(await sender.send(.sample(count: 1, id: 2)).outcome == .delivered)
        #expect(await sender.send(.sample(count: 1, id: 3)).outcome == .delivered)
        #expect(server.arrivals.count == 3 || server.arrivals.count == 4, "\(server.arrivals)")
    }

    @Test("sends from several tasks at once each get a connection")
    func concurrentSends() async throws {
        let server = try RawScriptServer { _ in .answer(Self.ok) }
        defer { server.stop() }
        let sender = try Self.sender(server)
        let outcomes = await withTaskGroup(of: SendOutcome.self) { group in
            for id in 1...8 { group.addTask { await sender.send(.sample(count: 3, id: Int64(id))).outcome } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 8)
        #expect(outcomes.allSatisfy { $0 == .delivered })
        #expect(server.arrivals.count == 8)
        #expect((1...8).contains(server.connections))
        // Afterwards the connections kept are reused.
        let before = server.connections
        #expect(await sender.send(.sample(count: 1, id: 9)).outcome == .delivered)
        #expect(server.connections == before)
    }
}

import BeaconTesting
import BeaconCollector
import BeaconWire
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Testing

/// Connections cannot be held for free: an idle one is closed after the idle timeout, a
/// body that trickles in is cut at the body timeout, and connections past the cap are
/// answered 503 and closed. Short timeouts here; each wait is bounded.
@Suite("Collector connection limits")
struct CollectorConnectionLimitTests {
    static func configuration(
        idle: Duration = .seconds(30), body: Duration = .seconds(60), maxConnections: Int = 1_024
    ) -> CollectorConfiguration {
        CollectorConfiguration(
            limits: CollectorLimits(idleTimeout: idle, bodyReadTimeout: body, maxConnections: maxConnections))
    }

    @Test("A connection that sends nothing is closed after the idle timeout")
    func idleConnectionClosed() async throws {
        try await withCollector(Self.configuration(idle: .milliseconds(300))) { _, port in
            let exchange = try await RawConnection.exchange(port: port, chunks: [], deadline: .seconds(5))
            #expect(exchange.closedByServer)
            #expect(exchange.elapsed >= .milliseconds(250))
            #expect(exchange.elapsed < .seconds(4))
        }
    }

    @Test("A connection left open after an answer is closed after the idle timeout")
    func idleAfterAnswerClosed() async throws {
        // 1 s of idle time: room for a loaded machine to read and answer the request first.
        try await withCollector(Self.configuration(idle: .seconds(1))) { _, port in
            let exchange = try await RawConnection.exchange(
                port: port, chunks: [bytes("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")], deadline: .seconds(10))
            #expect(exchange.status == 200)
            #expect(exchange.closedByServer)
            #expect(exchange.elapsed < .seconds(8))
        }
    }

    @Test("Headers sent a byte at a time (slowloris) are cut at the idle timeout")
    func slowHeadersCut() async throws {
        try await withCollector(Self.configuration(idle: .milliseconds(400))) { _, port in
            let head = bytes("GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: \(String(repeating: "s", count: 200))\r\n\r\n")
            let exchange = try await RawConnection.exchange(
                port: port, chunks: head.map { [$0] }, interval: .milliseconds(50), deadline: .seconds(6))
            #expect(exchange.closedByServer)
            #expect(exchange.elapsed < .seconds(5))
            #expect(exchange.status != 200)
        }
    }

    @Test("A body trickling in is cut at the body timeout with a JSON 408")
    func slowBodyCut() async throws {
        try await withCollector(Self.configuration(idle: .seconds(30), body: .milliseconds(500))) { collector, port in
            let head = bytes("POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
            let body = batchBody([trackJSON(messageId: "slow-1")])
            let exchange = try await RawConnection.exchange(
                port: port, chunks: [head] + body.map { [$0] }, interval: .milliseconds(40), deadline: .seconds(8))
            #expect(exchange.closedByServer)
            #expect(exchange.elapsed < .seconds(6))
            #expect(exchange.status == 408, "\(String(decoding: exchange.received.prefix(300), as: UTF8.self))")
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(exchange.body))
            #expect(ErrorResponse(json: json)?.error == "body_timeout")
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("A connection past the cap is answered 503 too_many_connections and closed; a freed slot serves again")
    func connectionCap() async throws {
        try await withCollector(Self.configuration(maxConnections: 2)) { collector, port in
            let first = try await RawConnection.open(port: port)
            let second = try await RawConnection.open(port: port)
            // Accepted connections are set up on several event loops, in no fixed order: wait
            // (bounded) until the server holds both, so the third is the one over the cap.
            for _ in 0..<500 where collector.openConnections() < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(collector.openConnections() == 2)
            let third = try await RawConnection.exchange(
                port: port, chunks: [bytes("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")], deadline: .seconds(5))
            #expect(third.closedByServer)
            #expect(third.status == 503, "\(String(decoding: third.received.prefix(300), as: UTF8.self))")
            #expect(third.head.contains("retry-after:"))
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(third.body))
            #expect(ErrorResponse(json: json)?.error == "too_many_connections")
            try await first.close()
            // The server sees the close asynchronously: poll, bounded, until a slot is free.
            var served = false
            for _ in 0..<50 where !served {
                let again = try await RawConnection.exchange(
                    port: port, chunks: [bytes("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")],
                    deadline: .seconds(5))
                served = again.status == 200
            }
            #expect(served)
            try await second.close()
        }
    }

    @Test("On graceful shutdown a stalled upload gets the grace, not the idle or body timeout: the server stops in time")
    func stalledUploadDoesNotHoldShutdown() async throws {
        var configuration = Self.configuration(idle: .seconds(30), body: .seconds(60))
        configuration.shutdownBodyGrace = .milliseconds(300)
        let collector = try Collector(configuration: configuration)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [collector], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: RawExchange?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            let port = try await collector.port
            // The head and the start of a 1,000-byte body, then nothing: a client that stalled.
            let head = bytes("POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
            tasks.addTask {
                try await RawConnection.exchange(port: port, chunks: [head + bytes("{\"batch\":[")], deadline: .seconds(20))
            }
            for _ in 0..<500 where collector.openConnections() < 1 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(collector.openConnections() == 1)
            let started = ContinuousClock.now
            await group.triggerGracefulShutdown()
            var exchange: RawExchange?
            while let next = try await tasks.next() {
                if let next { exchange = next }
            }
            let took = ContinuousClock.now - started
            // Before, the stalled upload held the shutdown until the idle timeout (30 s).
            #expect(took < .seconds(10), "the server stopped after \(took)")
            let seen = try #require(exchange)
            #expect(seen.closedByServer)
            // Its head had arrived: answered 408 (had the shutdown come first, closed unanswered).
            if let status = seen.status {
                #expect(status == 408, "\(String(decoding: seen.received.prefix(300), as: UTF8.self))")
                let json = try JSONDecoder().decode(JSONValue.self, from: Data(seen.body))
                #expect(ErrorResponse(json: json)?.error == "body_timeout")
            }
        }
    }
}

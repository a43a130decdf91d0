import Beacon
import BeaconWire
import Foundation
import Glibc
import Testing

/// The sender when the destination misbehaves: hangs, is not there, redirects.
@Suite("HTTPSender failures over loopback")
struct HTTPSenderFailureTests {
    @Test("a server that hangs past the client timeout gives a retryable timeout")
    func hangingServerTimesOut() async throws {
        try await ScriptedServer.run([.status(200), .hang]) { server in
            let configuration = try HTTPSenderConfiguration(
                endpoint: server.endpoint, writeKey: "k", requestTimeout: .seconds(3))
            let sender = HTTPSender(configuration: configuration)
            // A first batch, answered, opens the kept-alive connection and warms both ends:
            // at the start of a full run on two cores, a fresh server's first request has
            // been seen to take over 3 s to be read, which is not what this test is about.
            #expect(await sender.send(.sample(count: 1)).outcome == .delivered)
            let clock = ContinuousClock()
            let started = clock.now

            let result = await sender.send(.sample(count: 2))

            let elapsed = clock.now - started
            #expect(result.outcome == .retryable(reason: "timed out waiting for the destination", retryAfter: nil))
            #expect(result.status == nil)
            #expect(server.requests.count == 2, "the request reached the server, which then hung")
            #expect(elapsed >= .seconds(3))
            #expect(elapsed < .seconds(9), "the configured 3 s deadline ended it, not the default 10 s")
        }
    }

    @Test("a closed port gives a retryable connection refused")
    func closedPortIsRefused() async throws {
        let port = try freeLoopbackPort()
        let sender = try HTTPSender(endpoint: "http://127.0.0.1:\(port)", writeKey: "k")

        let result = await sender.send(.sample(count: 1))

        #expect(result.outcome == .retryable(reason: "connection refused", retryAfter: nil))
        #expect(result.status == nil)
    }

    @Test("a redirect is not followed and is retryable with a reason naming it")
    func redirectIsNotFollowed() async throws {
        try await ScriptedServer.run([.status(307, headers: ["Location": "/elsewhere/v1/batch"])]) { server in
            let result = try await HTTPSender(endpoint: server.endpoint, writeKey: "k").send(.sample(count: 1))

            #expect(result.status == 307)
            guard case .retryable(let reason, nil) = result.outcome else {
                Issue.record("expected retryable, got \(result.outcome)")
                return
            }
            #expect(reason.hasPrefix("HTTP 307 Temporary Redirect"))
            #expect(reason.contains("/elsewhere/v1/batch"))
            #expect(server.requests.map(\.path) == ["/v1/batch"], "the redirect target was never requested")
        }
    }

    @Test("cancelling the sending task ends the send at once as retryable")
    func cancellationEndsTheSend() async throws {
        try await ScriptedServer.run([.hang]) { server in
            let sender = try HTTPSender(endpoint: server.endpoint, writeKey: "k")
            let sending = Task { await sender.send(.sample(count: 1)) }
            var arrivals = server.arrivals.makeAsyncIterator()
            _ = await arrivals.next()  // the request is in flight on the server

            sending.cancel()
            let result = await sending.value

            #expect(result.outcome == .retryable(reason: "send cancelled", retryAfter: nil))
        }
    }

    @Test("the endpoint's path is kept as a prefix of /v1/batch")
    func endpointPathPrefix() async throws {
        try await ScriptedServer.run([]) { server in
            let result = try await HTTPSender(endpoint: server.endpoint + "/elsewhere/", writeKey: "k").send(.sample(count: 1))
            #expect(result.outcome == .delivered)
            #expect(server.requests.map(\.path) == ["/elsewhere/v1/batch"])
        }
    }
}

/// A loopback port with nothing listening: bound to port 0, read back, then closed.
func freeLoopbackPort() throws -> Int {
    let (descriptor, port) = try boundLoopbackSocket(listening: false)
    close(descriptor)
    return port
}

/// A TCP socket bound to 127.0.0.1 on a port the system picks (listening when asked),
/// and that port. The caller closes it.
func boundLoopbackSocket(listening: Bool) throws -> (descriptor: Int32, port: Int) {
    struct SocketError: Error { var call: String; var errno: Int32 }
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw SocketError(call: "socket", errno: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            guard bind(descriptor, generic, length) == 0, !listening || listen(descriptor, 64) == 0 else { return false }
            return getsockname(descriptor, generic, &length) == 0
        }
    }
    guard bound else {
        let code = errno
        close(descriptor)
        throw SocketError(call: "bind/listen/getsockname", errno: code)
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

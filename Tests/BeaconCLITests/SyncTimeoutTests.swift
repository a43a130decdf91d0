import BeaconTesting
import Foundation
import Testing

/// `beacon sync --timeout N` against a server that trickles its answer one byte a second
/// (issue 22, F10): the timeout bounds the whole request, head and body, so the command
/// ends within N seconds and a small margin, exit 1, naming the timeout.
@Suite("beacon sync: the timeout bounds the whole request", .timeLimit(.minutes(2)))
struct SyncTimeoutTests {
    @Test("a body trickled one byte a second is cut at --timeout")
    func trickledBodyIsCutAtTheTimeout() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let body = Array(#"{"settings": {}, "version_token": "slow-but-valid"}"#.utf8)
        let server = try TricklingHTTPServer(head: TricklingHTTPServer.head(status: 200, length: body.count), body: body, pause: .seconds(1))
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = try await BeaconProcess.run(
            ["sync", "--db", directory + "/s.sqlite", "--from", server.url + "/v1/config", "--timeout", "3"], stdinBytes: nil,
            limit: .seconds(90))
        let elapsed = ContinuousClock.now - started
        #expect(server.connections == 1, "the request reached the server")
        #expect(elapsed < .seconds(3) + .seconds(3), "ended within the 3 s timeout and a margin, not after the \(body.count) s trickle: \(elapsed)")
        #expect(result.status == 1, "\(result.status): \(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("timed out"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("a head trickled one byte a second is cut at --timeout")
    func trickledHeadIsCutAtTheTimeout() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let body = Array(#"{"settings": {}, "version_token": "v"}"#.utf8)
        let server = try TricklingHTTPServer(head: [], body: TricklingHTTPServer.head(status: 200, length: body.count) + body, pause: .seconds(1))
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = try await BeaconProcess.run(
            ["sync", "--db", directory + "/s.sqlite", "--from", server.url + "/v1/config", "--timeout", "2"], stdinBytes: nil,
            limit: .seconds(150))
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(2) + .seconds(3), "\(elapsed)")
        #expect(result.status == 1 && result.stderr.contains("timed out"), "\(result.stderr)")
    }
}

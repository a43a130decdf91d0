import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Starting the channel where a socket file already is: stale ones are replaced, live ones
/// left alone; a client finding nothing says so.
@Suite("Control socket lifecycle", .timeLimit(.minutes(2)))
struct ControlSocketLifecycleTests {
    /// Leaves a socket file nobody listens on, as a killed engine does.
    static func makeStaleSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        close(fd)  // the file stays; connecting to it is refused
    }

    @Test("a stale socket file left by a killed engine is replaced on the next start")
    func staleSocketIsReplaced() async throws {
        let running = try await ControlChannelTests.Running.start()
        await running.control.close()
        let path = running.store + ".control"
        try Self.makeStaleSocket(at: path)
        #expect(FileManager.default.fileExists(atPath: path))
        let noEngine = await #expect(throws: ControlClientError.self) { _ = try await running.client.send(.status) }
        #expect(noEngine?.kind == .noEngine)
        #expect(noEngine?.message == "no engine serves \(running.store) (no control socket at \(path))")

        let replaced = try await running.engine.serveControl()
        let status = try ControlChannelTests.applied(await running.client.send(.status))
        #expect(status["policy"] == "manual")
        await replaced.close()
        try await running.stop()
    }

    @Test("a socket a live engine serves is not stolen: the second start fails with a clear error")
    func liveSocketIsNotStolen() async throws {
        let running = try await ControlChannelTests.Running.start()
        let second = await #expect(throws: ControlServerError.self) { _ = try await running.engine.serveControl() }
        #expect(second?.reason.contains("another running engine serves this store") == true)
        #expect(try ControlChannelTests.applied(await running.client.send(.status))["policy"] == "manual")
        try await running.stop()
    }

    @Test("a file that is not a socket at the path is left alone and named")
    func regularFileIsRefused() async throws {
        let running = try await ControlChannelTests.Running.start()
        await running.control.close()
        let path = running.store + ".control"
        try Data("not a socket".utf8).write(to: URL(fileURLWithPath: path))
        let error = await #expect(throws: ControlServerError.self) { _ = try await running.engine.serveControl() }
        #expect(error?.reason.contains("not a socket") == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a socket")
        try await running.stop()
    }

    @Test("no socket file: the client says no engine serves the store, in one line")
    func noEngine() async throws {
        let client = ControlClient(store: "/nonexistent/beacon.sqlite")
        let error = await #expect(throws: ControlClientError.self) { _ = try await client.send(.status) }
        #expect(error?.kind == .noEngine)
        #expect(error?.message.contains("\n") == false)
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What `beacon status` says of the engine when the store's control socket gives no
/// status: "none" only when nothing listens; "unknown", with the reason, when something
/// listens and does not answer or answers what is not a status. An engine that is busy
/// is not reported as absent.
@Suite("beacon status: an engine that does not answer", .timeLimit(.minutes(1)))
struct StatusEngineProbeTests {
    @Test("nothing listening (a stale socket file): none answers, and engine null in JSON")
    func staleSocketIsNoEngine() async throws {
        let (directory, store) = try await Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let socket = try FakeEngineSocket(path: store + ".control", listening: false)
        defer { socket.close() }

        let text = try await BeaconProcess.run(["status", "--db", store])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("engine       none answers on \(store).control: destination states unknown"), "\(text.stdout)")
        let json = try Self.json(try await BeaconProcess.run(["status", "--db", store, "--json"]).stdout)
        #expect(json["engine"] is NSNull, "\(json)")
    }

    @Test("a listener that never answers: the engine's state is unknown, not absent")
    func silentListenerIsUnknown() async throws {
        let (directory, store) = try await Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        // Connections complete in the backlog and nobody reads them: an engine too busy to answer.
        let socket = try FakeEngineSocket(path: store + ".control", listening: true)
        defer { socket.close() }

        let text = try await BeaconProcess.run(["status", "--db", store])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!text.stdout.contains("none answers"), "\(text.stdout)")
        #expect(text.stdout.contains("engine       unknown: the engine at \(store).control did not answer within 2.0 seconds"), "\(text.stdout)")
        #expect(text.stdout.contains("depth        2 events"), "the store's own facts are still shown: \(text.stdout)")
        let json = try Self.json(try await BeaconProcess.run(["status", "--db", store, "--json"]).stdout)
        let engine = try #require(json["engine"] as? [String: Any], "\(json)")
        #expect((engine["error"] as? String)?.contains("did not answer") == true, "\(engine)")
        #expect(json["depth"] as? Int == 2)
    }

    @Test("a listener that answers what is not a response: unknown, with the reason")
    func garbledAnswerIsUnknown() async throws {
        let (directory, store) = try await Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let socket = try FakeEngineSocket(path: store + ".control", listening: true)
        defer { socket.close() }
        // Answers each of the two commands' connections with a line that is not a response.
        let answering = Thread { socket.answer(connections: 2, with: Array("{\"nonsense\":\u{1}true}\n".utf8)) }
        answering.start()

        let text = try await BeaconProcess.run(["status", "--db", store])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("engine       unknown: "), "\(text.stdout)")
        #expect(!text.stdout.contains("none answers"), "\(text.stdout)")
        #expect(!text.stdout.contains("did not answer within"), "the answer came at once: \(text.stdout)")
        let json = try Self.json(try await BeaconProcess.run(["status", "--db", store, "--json"]).stdout)
        let engine = try #require(json["engine"] as? [String: Any], "\(json)")
        #expect((engine["error"] as? String)?.isEmpty == false, "\(engine)")
    }

    @Test("dead letters beside a listener that never answers: refused with the reason, the store not touched behind it")
    func deadBesideASilentListener() async throws {
        let (directory, store) = try await Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let socket = try FakeEngineSocket(path: store + ".control", listening: true)
        defer { socket.close() }
        for arguments in [["list"], ["retry", "--all"], ["purge", "--all", "--yes"]] {
            let result = try await BeaconProcess.run(["dead", "--db", store, "--timeout-ms", "300"] + arguments)
            #expect(result.status == 1, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("did not answer within"), "\(arguments): \(result.stderr)")
        }
    }

    /// A store with two events, in a fresh directory.
    private static func store() async throws -> (directory: String, store: String) {
        let directory = try BeaconProcess.temporaryDirectory()
        let store = directory + "/s.sqlite"
        let tracked = try await BeaconProcess.run(["track", "--db", store, "--count", "2"])
        #expect(tracked.status == 0, "\(tracked.stderr)")
        return (directory, store)
    }

    private static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }
}

/// A Unix socket at a store's control path that is not an engine: bound only (what a
/// killed engine leaves), or listening without serving.
private final class FakeEngineSocket: Sendable {
    let descriptor: Int32

    init(path: String, listening: Bool) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind: \(String(cString: strerror(errno)))")
        if listening { try #require(listen(fd, 8) == 0) }
        descriptor = fd
    }

    /// Accepts `connections` one after another; reads a request line from each and writes `line`.
    func answer(connections: Int, with line: [UInt8]) {
        for _ in 0..<connections {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }  // closed: the test is over
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
            _ = line.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            Glibc.close(client)
        }
    }

    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }
}

import Beacon
import BeaconTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `beacon monitor` in a real terminal on the store of an engine that serves its control
/// channel: the header shows the engine's settings and the keys act on it.
@Suite("beacon monitor attached under tmux", .serialized)
struct MonitorAttachTmuxTests {
    @Test("the header shows the engine's policy and batch size; o and + act on the engine",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func keysActOnTheEngine() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/served.sqlite"
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: store), destination: Destination(sender: RecordingSender()),
            settings: EngineSettings(policy: .count(7), batchSize: 64))
        let task = Task { try await engine.run() }
        let control = try await engine.serveControl()

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 100, height: 30, directory: directory)
        defer { tmux.kill() }
        let screen = try await tmux.waitForScreen("the attached header") { DashboardText.header($0).contains("MONITOR (attached)") }
        let header = DashboardText.header(screen)
        #expect(header.contains("policy count 7"), "\(header)")
        #expect(header.contains("batch 64"), "\(header)")
        #expect(header.contains("ONLINE"))

        try tmux.press("o")
        try await tmux.waitForScreen("the question before a live change") { $0.contains("live engine: take the engine offline?") }
        #expect(!engine.settings.current.isOffline, "nothing changes before y")
        try tmux.press("y")
        try await tmux.waitForScreen("OFFLINE from the engine") { DashboardText.header($0).contains("OFFLINE") }
        #expect(engine.settings.current.isOffline)

        try tmux.press("+")
        try await tmux.waitForScreen("the question") { $0.contains("live engine: set the batch size to 128?") }
        try tmux.press("y")
        try await tmux.waitForScreen("batch 128 from the engine") { DashboardText.header($0).contains("batch 128") }
        #expect(engine.settings.current.batchSize == 128)

        try tmux.press("b")
        try await tmux.waitForScreen("the demo-only message") { $0.contains("works in beacon demo only") }

        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
        #expect(engine.settings.current.isOffline, "quitting the monitor leaves the engine as it was")
        await control.close()
        await engine.beginShutdown()
        try await task.value
    }

    @Test("monitor --read-only attached to a live engine refuses every key that would change it; the same store twice is refused",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func readOnlyByChoice() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/watched.sqlite"
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: store), destination: Destination(sender: RecordingSender()),
            settings: EngineSettings(policy: .count(7), batchSize: 64))
        let task = Task { try await engine.run() }
        let control = try await engine.serveControl()

        let tmux = try TmuxSession(
            [BeaconProcess.path, "monitor", "--db", store, "--read-only"], width: 100, height: 30, directory: directory)
        defer { tmux.kill() }
        try await tmux.waitForScreen("the attached, read-only header") { DashboardText.header($0).contains("MONITOR (attached, read-only)") }
        for key in ["o", "P", "+"] {
            try tmux.press(key)
            try await tmux.waitForScreen("the refusal of \(key)") { $0.contains("read-only (--read-only)") }
            try tmux.press("y")
        }
        #expect(!engine.settings.current.isOffline && engine.settings.current.batchSize == 64)
        #expect(await engine.observer.snapshot.destinations.first?.state != .pausedByOperator)
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)

        let twice = try await BeaconProcess.run(["monitor", "--db", store, "--db", directory + "/./watched.sqlite"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("the same store is given twice"), "\(twice.stderr)")
        await control.close()
        await engine.beginShutdown()
        try await task.value
    }

    @Test("a stale socket file (its engine killed) leaves the monitor read-only, and it says so",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func staleSocketIsReadOnly() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/stale.sqlite"
        let tracked = try await BeaconProcess.run(["track", "--db", store, "--count", "3"])
        #expect(tracked.status == 0, "\(tracked.stderr)")
        // A socket file nobody listens on, as a killed engine leaves it.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((store + ".control").utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        close(fd)

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 100, height: 30, directory: directory)
        defer { tmux.kill() }
        let screen = try await tmux.waitForScreen("depth 3") { DashboardText.depth(in: $0) == 3 }
        #expect(DashboardText.header(screen).contains("MONITOR (read-only)"))
        try tmux.press("o")
        try await tmux.waitForScreen("the read-only message") { $0.contains("read-only monitor") }
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
    }

    @Test("an engine that stops answering (SIGSTOP) is lost but not gone: the screen says it holds the socket; it attaches again",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func stoppedEngineIsLostNotGone() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/stopped.sqlite"
        let agent = try RunningAgent(store: store, endpoints: [AgentCommandTests.nowhere], directory: directory)
        defer { agent.kill9() }
        _ = try await agent.address()
        let pid = agent.process.processIdentifier

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 100, height: 30, directory: directory)
        defer { tmux.kill() }
        try await tmux.waitForScreen("the attached header") { DashboardText.header($0).contains("MONITOR (attached)") }

        #expect(kill(pid, SIGSTOP) == 0)
        let lost = try await tmux.waitForScreen("ENGINE LOST, still holding the socket") {
            $0.contains("ENGINE LOST at ") && $0.contains("the engine is there but silent")
        }
        #expect(!lost.contains("nothing serves this store"), "the engine is there: \(lost)")
        #expect(lost.contains("state unknown (engine lost)"), "\(lost)")
        // `status` says the same: unknown, not absent.
        let status = try await BeaconProcess.run(["status", "--db", store])
        #expect(status.stdout.contains("engine       unknown: the engine at \(store).control did not answer within"), "\(status.stdout)")

        #expect(kill(pid, SIGCONT) == 0)
        try await tmux.waitForScreen("attached again once it answers") { DashboardText.header($0).contains("MONITOR (attached)") }
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
    }
}

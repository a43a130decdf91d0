import Foundation
import Testing

/// `beacon monitor` in a real terminal, watching a store another process writes to.
@Suite("beacon monitor under tmux", .serialized)
struct MonitorTmuxTests {
    @Test("shows the depth of another process's store and follows its writes",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func followsAnotherProcess() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/watched.sqlite"
        let first = try await BeaconProcess.run(["track", "--db", store, "--count", "5"])
        #expect(first.status == 0, "\(first.stderr)")

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 100, height: 30, directory: directory)
        defer { tmux.kill() }
        let screen = try await tmux.waitForScreen("depth 5") { DashboardText.depth(in: $0) == 5 }
        #expect(DashboardText.header(screen).contains("MONITOR (read-only)"))

        let second = try await BeaconProcess.run(["track", "--db", store, "--count", "20"])
        #expect(second.status == 0, "\(second.stderr)")
        let later = try await tmux.waitForScreen("depth 25") { DashboardText.depth(in: $0) == 25 }
        #expect(later.contains("delivered 0 of 25 events"), "the outcomes line counts both processes' writes")

        try tmux.press("f")
        try await tmux.waitForScreen("the read-only message") { $0.contains("read-only monitor") }

        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
    }

    @Test("a missing store exits 2 with one line")
    func refusesMissingStore() async throws {
        let result = try await BeaconProcess.run(["monitor", "--db", "/nonexistent/beacon.sqlite"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("/nonexistent/beacon.sqlite"))
    }
}

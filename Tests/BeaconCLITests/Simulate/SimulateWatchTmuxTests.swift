import Foundation
import Testing

/// `beacon simulate --watch` in a real terminal: the dashboard attached to the run's engine
/// while the steps go on, then the report once it is over.
@Suite("beacon simulate --watch under tmux", .serialized)
struct SimulateWatchTmuxTests {
    @Test("shows the run on the dashboard, then the report",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(2)))
    func watchShowsTheDashboardThenTheReport() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let file = directory + "/scenario.json"
        try """
        {
          "name": "watched",
          "collectors": [ { "name": "main" } ],
          "steps": [
            { "name": "offline", "seconds": 4, "rate": 50, "offline": true, "burst": 300 },
            { "name": "online", "seconds": 2, "rate": 50 }
          ],
          "expect": { "delivered": 600, "deadLetters": 0 }
        }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let tmux = try TmuxSession(
            [BeaconProcess.path, "simulate", file, "--watch", "--dir", directory + "/run"], width: 80, height: 24,
            directory: directory)
        defer { tmux.kill() }
        // The dashboard, attached to the engine the run started, offline with the burst
        // queued, its title naming the running step.
        let screen = try await tmux.waitForScreen("the attached dashboard, offline, with the burst, in step 1") {
            DashboardText.header($0).contains("step 1/2: offline · attached") && DashboardText.header($0).contains("OFFLINE")
                && (DashboardText.depth(in: $0) ?? 0) >= 300
        }
        // Then the next step's name, on the same dashboard.
        _ = try await tmux.waitForScreen("the title naming step 2") { DashboardText.header($0).contains("step 2/2: online") }
        #expect(screen.contains("/run/engine.sqlite"))
        // Then the monitor gives the terminal back and the report follows.
        #expect(try await tmux.waitForExit(timeout: .seconds(60)) == 0)
        let report = try tmux.capture()
        #expect(report.contains("PASSED"), "\(report)")
        #expect(!report.contains("Fatal error"))
    }
}

import Foundation
import Testing

/// The tmux harness itself: a test's pane must not outlive it.
@Suite("tmux harness")
struct TmuxSessionTests {
    @Test("kill() stops the server and the command in its pane",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func killStopsTheServer() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let tmux = try TmuxSession(["sh", "-c", "echo pane-ready; sleep 300"], width: 40, height: 10, directory: directory)
        try await tmux.waitForScreen("the pane's command") { $0.contains("pane-ready") }
        #expect(tmux.isServerRunning)
        tmux.kill()
        let deadline = ContinuousClock.now + .seconds(10)
        while tmux.isServerRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!tmux.isServerRunning, "kill-server was ignored: the server still answers")
    }
}

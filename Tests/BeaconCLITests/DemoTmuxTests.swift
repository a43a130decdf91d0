import Foundation
import Testing

/// `beacon demo` in a real terminal (a tmux pane): keys in, screen text out.
@Suite("beacon demo under tmux", .serialized)
struct DemoTmuxTests {
    @Test("keys drive the engine, the screen survives a resize, q exits 0 and restores the terminal",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func drivesTheDemo() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/demo.sqlite"
        let tmux = try TmuxSession(
            [BeaconProcess.path, "demo", "--rate", "0", "--db", store, "--policy", "manual"],
            width: 100, height: 30, directory: directory)
        defer { tmux.kill() }

        let first = try await tmux.waitForScreen("the whole first screen") { screen in
            DashboardText.header(screen).contains("DEMO") && screen.contains("q:quit")
        }
        #expect(DashboardText.header(first).contains("ONLINE"))
        #expect(DashboardText.header(first).contains("policy manual"))
        #expect(first.contains(store.suffix(20)), "the header shows the store path")

        try tmux.press("o")
        try await tmux.waitForScreen("OFFLINE in the header") { DashboardText.header($0).contains("OFFLINE") }

        try tmux.press("b")
        try await tmux.waitForScreen("a burst queued while offline") { (DashboardText.depth(in: $0) ?? 0) >= 500 }
        // Issue 41: `f` on an offline engine said "flush requested" while the engine refused
        // it. The demo's keys take `ctl`'s path: the refusal and its reason are on the screen.
        try tmux.press("f")
        try await tmux.waitForScreen("the offline engine's refusal of a flush") {
            $0.contains("refused: the engine is offline; send 'online' first")
        }

        try tmux.press("o")
        try await tmux.waitForScreen("ONLINE again") { DashboardText.header($0).contains("ONLINE") }
        try tmux.press("f")
        let flushed = try await tmux.waitForScreen("the queue drained by a flush") { screen in
            DashboardText.depth(in: screen) == 0 && screen.contains("delivered 500 of 500 events")
        }
        #expect(flushed.contains("sent"), "the batch history shows the sent batch")

        try tmux.press("p")
        try tmux.press("count 50", literal: true)
        try tmux.press("Enter")
        try await tmux.waitForScreen("the new policy in the header") { DashboardText.header($0).contains("policy count 50") }

        try tmux.press("+")
        try await tmux.waitForScreen("batch size doubled in the header") { DashboardText.header($0).contains("batch 200") }

        // Each key the demo's engine was given is in the operator log, the refused flush too.
        try tmux.press("l")
        let log = try await tmux.waitForScreen("the demo's own keys in the operator log") { screen in
            screen.contains("batch-size") && screen.contains("refused")
        }
        for command in ["offline", "online", "flush", "policy"] {
            #expect(log.contains(command), "\(command) in the log: \(log)")
        }
        try tmux.press("Escape")
        try await tmux.waitForScreen("the main view again") { $0.contains("Queue depth") }

        try tmux.press("?")
        let help = try await tmux.waitForScreen("the help overlay") { $0.contains("go offline / back online") }
        #expect(help.contains("quit"))
        try tmux.press("?")
        try await tmux.waitForScreen("the legend, the help's second page") { $0.contains("its first failure after its last success") }
        try tmux.press("Escape")
        try await tmux.waitForScreen("the help overlay hidden") { !$0.contains("its first failure after its last success") }

        try tmux.resize(width: 80, height: 24)
        let small = try await tmux.waitForScreen("a redraw at 80x24") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return DashboardText.header(screen).contains("DEMO") && lines.count <= 25 && screen.contains("Queue depth")
                && DashboardText.depth(in: screen) != nil && lines.allSatisfy { $0.count <= 80 }
        }
        #expect(DashboardText.depth(in: small) == 0)
        try tmux.resize(width: 100, height: 30)
        try await tmux.waitForScreen("a redraw at 100x30") { screen in
            DashboardText.header(screen).contains("DEMO") && DashboardText.depth(in: screen) == 0
                && screen.split(separator: "\n").contains { $0.count > 80 }
        }

        try tmux.press("q")
        let status = try await tmux.waitForExit()
        #expect(status == 0)
        let after = try await tmux.waitForScreen("the shell after exit") { $0.contains("[beacon exited]") }
        #expect(!after.contains("Queue depth"), "the dashboard's screen is gone")
        #expect(try tmux.display("#{alternate_on}") == "0", "the terminal left the alternate screen")
    }

    @Test("with two destinations, a collector that is down holds nothing back for the other",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func twoDestinations() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/demo.sqlite"
        let tmux = try TmuxSession(
            [BeaconProcess.path, "demo", "--rate", "0", "--db", store, "--policy", "count 1", "--destinations", "2"],
            width: 100, height: 30, directory: directory)
        defer { tmux.kill() }

        try await tmux.waitForScreen("both destinations listed") { screen in
            DashboardText.destinationDepth("default", in: screen) == 0 && DashboardText.destinationDepth("backup", in: screen) == 0
        }
        try tmux.press("c")
        try tmux.press("c")
        try await tmux.waitForScreen("the first collector down") { $0.contains("faults down") }
        try tmux.press("b")
        let split = try await tmux.waitForScreen("the backup has the burst, the default destination retries") { screen in
            DashboardText.destinationDepth("backup", in: screen) == 0
                && (DashboardText.destinationDepth("default", in: screen) ?? 0) >= 500
                && screen.contains("retry #")
        }
        #expect(DashboardText.depth(in: split) ?? 0 >= 500, "the events stay in the store for the destination that lacks them")

        try tmux.press("c")
        try tmux.press("c")
        try await tmux.waitForScreen("faults off") { $0.contains("faults none") }
        try await tmux.waitForScreen("the default destination caught up and the store emptied", timeout: .seconds(30)) { screen in
            DashboardText.destinationDepth("default", in: screen) == 0 && DashboardText.depth(in: screen) == 0
                && screen.contains("delivered 500 of 500 events")
        }
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
    }

    @Test("without a terminal it exits 1 with one line naming the script commands")
    func refusesWithoutTerminal() async throws {
        let result = try await BeaconProcess.run(["demo", "--rate", "0"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(result.stderr.contains("beacon track"))
        #expect(result.stderr.contains("beacon flush"))
    }

    @Test("bad option values exit 2 with one line", arguments: [
        ["demo", "--policy", "sometimes"], ["demo", "--batch-size", "0"], ["demo", "--rate", "-5"],
        ["demo", "--catalogue", "/nonexistent/events.json"],
    ])
    func refusesBadValues(arguments: [String]) async throws {
        let result = try await BeaconProcess.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
    }
}

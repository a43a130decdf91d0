import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// `beacon monitor --db A --db B` (and `--dir`) in a real terminal: one row per engine,
/// true to each; Enter opens either, Esc goes back; an engine that stops answering turns
/// LOST with no rates; `--read-only` refuses the open engine's action keys.
@Suite("several engines on one screen under tmux", .serialized)
struct FleetMonitorTmuxTests {
    @Test("both engines listed truly; Enter opens either; a stopped one turns LOST; --dir and --read-only",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(2)))
    func fleet() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let orders = try await CtlCommandTests.Served.start(in: directory, name: "orders.sqlite", batchSize: 10)
        let failing = RecordingSender { _, _ in SendResult(.retryable(reason: "HTTP 503", retryAfter: .seconds(3600)), status: 503) }
        let search = try await CtlCommandTests.Served.start(sender: failing, in: directory, name: "search.sqlite", batchSize: 10)
        try await search.engine.tracker.track("Waits", anonymousId: "a").committed()
        await search.engine.flush()
        _ = await search.engine.observer.firstSnapshot { $0.destinations.first?.state.nextRetryAt != nil }

        let tmux = try TmuxSession(
            [BeaconProcess.path, "monitor", "--db", directory + "/orders.sqlite", "--db", directory + "/search.sqlite"],
            width: 80, height: 24, directory: directory)
        defer { tmux.kill() }
        let list = try await tmux.waitForScreen("both engines, the failing one named") {
            $0.contains("2 engines") && Self.row("orders", in: $0)?.contains("idle") == true
                && Self.row("search", in: $0)?.contains("retry in") == true
        }
        #expect(Self.row("search", in: list)?.hasSuffix("default") == true, "its failing destination: \(list)")
        #expect(Self.row("search", in: list)?.contains(" 1 ") == true, "its depth: \(list)")
        #expect(list.contains("1 failing"), "\(list)")

        // Enter opens the second; Esc goes back.
        try tmux.press("Down")
        try tmux.press("Enter")
        let open = try await tmux.waitForScreen("search open, attached") {
            DashboardText.header($0).contains("MONITOR (attached)") && $0.contains("engine 2 of 2: search")
        }
        #expect(open.contains("retrying in"), "its destination's backoff: \(open)")
        try tmux.press("Escape")
        try await tmux.waitForScreen("the list again") { $0.contains("2 engines") && $0.contains("▶ search") }

        // The first engine stops answering: LOST, since when, and no rates.
        try await orders.stop()
        let lost = try await tmux.waitForScreen("orders lost", timeout: .seconds(20)) { Self.row("orders", in: $0)?.contains("LOST") == true }
        let ordersRow = try #require(Self.row("orders", in: lost))
        #expect(ordersRow.filter { $0 == "?" }.count == 2, "in/s and out/s unknown: \(ordersRow)")
        #expect(lost.contains("1 lost"), "\(lost)")
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)

        // --dir finds both stores; --read-only refuses the open engine's keys.
        let watched = try TmuxSession(
            [BeaconProcess.path, "monitor", "--dir", directory, "--read-only"], width: 80, height: 24, directory: directory)
        defer { watched.kill() }
        try await watched.waitForScreen("both stores from --dir") {
            $0.contains("MONITOR (fleet, read-only)") && Self.row("orders", in: $0) != nil && Self.row("search", in: $0) != nil
        }
        try watched.press("Down")
        try watched.press("Enter")
        try await watched.waitForScreen("search open") { DashboardText.header($0).contains("MONITOR (attached, read-only)") }
        try watched.press("R")
        try await watched.waitForScreen("the refusal") { $0.contains("read-only (--read-only)") }
        #expect(await search.engine.observer.snapshot.destinations.first?.state.nextRetryAt != nil, "still backing off")
        try watched.press("q")
        #expect(try await watched.waitForExit() == 0)

        let empty = directory + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let none = try await BeaconProcess.run(["monitor", "--dir", empty])
        #expect(none.status == 1 && none.stderr.contains("no Beacon store"), "\(none.stderr)")
        try await search.stop()
    }

    /// The list's row for `name`, if shown.
    static func row(_ name: String, in screen: String) -> String? {
        screen.split(separator: "\n").map(String.init).first { $0.dropFirst(2).hasPrefix(name + " ") }?
            .trimmingCharacters(in: .whitespaces)
    }
}

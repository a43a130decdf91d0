import Beacon
import BeaconTesting
import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension FleetMonitorTmuxTests {
    /// Issue 45, finding 6: one bad file does not stop the fleet. Beside two served stores,
    /// an empty file (a store being created), a truncated store, a foreign SQLite file and
    /// a loop of links are rows saying why; the two are listed and open as usual. A store
    /// made in the empty file, and one that replaces the foreign file, show their events.
    @Test("monitor --dir: empty, truncated, foreign and looping files are rows of their own; replaced files are read anew",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(2)))
    func unreadableStoresAreRowsOfTheirOwn() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let first = try await CtlCommandTests.Served.start(in: directory, name: "alpha.sqlite", batchSize: 10)
        let second = try await CtlCommandTests.Served.start(in: directory, name: "beta.sqlite", batchSize: 10)

        #expect(FileManager.default.createFile(atPath: directory + "/empty.sqlite", contents: Data()))
        // A real store cut short: its header promises pages that are not there.
        let whole = directory + "/whole.tmp"
        let made = try await BeaconProcess.run(["track", "--db", whole, "--count", "50"])
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(1500).write(to: URL(fileURLWithPath: directory + "/trunc.sqlite"))
        let foreign = try DatabaseQueue(path: directory + "/foreign.sqlite")
        try await foreign.write { db in try db.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)") }
        try foreign.close()
        #expect(symlink(directory + "/loop.sqlite", directory + "/loop.sqlite") == 0)

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--dir", directory], width: 80, height: 24, directory: directory)
        defer { tmux.kill() }
        let list = try await tmux.waitForScreen("six rows, the four bad files saying why") { screen in
            screen.contains("6 engines") && Self.row("alpha", in: screen)?.contains("idle") == true
                && Self.row("beta", in: screen)?.contains("idle") == true
                && ["empty", "trunc", "foreign", "loop"].allSatisfy { Self.row($0, in: screen)?.contains("UNREADABLE") == true }
        }
        #expect(Self.row("empty", in: list)?.contains("empty SQLite file") == true, "\(list)")
        #expect(Self.row("foreign", in: list)?.contains("not a Beacon store") == true, "\(list)")
        #expect(Self.row("loop", in: list)?.contains("loop of symbolic") == true, "\(list)")

        // The two served stores open as usual.
        try tmux.press("Enter")
        try await tmux.waitForScreen("alpha open, attached") { DashboardText.header($0).contains("MONITOR (attached)") }
        try tmux.press("Escape")
        try await tmux.waitForScreen("the list again") { $0.contains("6 engines") }

        // The empty file becomes a store; the foreign one is replaced by a store.
        let grown = try await BeaconProcess.run(["track", "--db", directory + "/empty.sqlite", "--count", "3"])
        #expect(grown.status == 0, "\(grown.stderr)")
        #expect(unlink(directory + "/foreign.sqlite") == 0)
        let replaced = try await BeaconProcess.run(["track", "--db", directory + "/foreign.sqlite", "--count", "7"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        try await tmux.waitForScreen("both read as stores now, with their events") {
            Self.row("empty", in: $0).map { $0.contains("no engine") && $0.contains(" 3 ") } == true
                && Self.row("foreign", in: $0).map { $0.contains("no engine") && $0.contains(" 7 ") } == true
        }
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
        try await first.stop()
        try await second.stop()
    }
}

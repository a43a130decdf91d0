import ArgumentParser
import Beacon
import BeaconDashboard
import BeaconTerminal
import Foundation

/// `beacon monitor`: the dashboard attached read-only to another process's store.
///
/// The monitor never writes to the store and drives no engine: in monitor mode the
/// engine keys (flush, policy, offline, burst, batch size, rate, faults) only leave a
/// message saying the monitor is read-only; `?` and `q` work. Commands belong to the
/// process that owns the store, and a second writer would contend for its lock.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch another process's store read-only on the dashboard.",
        discussion: """
            Polls the store every --interval-ms (a read of its counters row, the recent batches \
            and the newest dead letter) and shows depth, rates, batch history, latency and dead \
            letters. Engine keys are disabled: the monitor is read-only; ? help, q quit. \
            The store does not record the writer's policy, batch size or endpoint, so the header \
            shows them as unknown. Logs go to beacon-monitor.log in the system temp directory.
            """)

    @Option(help: "The store to watch (an SQLite file written by another process).")
    var db: String

    @Option(parsing: .unconditional, help: "Milliseconds between polls (20...10000).")
    var intervalMs: Int = 250

    func validate() throws {
        guard (20...10_000).contains(intervalMs) else {
            throw ValidationError("--interval-ms must be 20...10000, not \(intervalMs)")
        }
    }

    func run() async throws {
        let reader: StoreReader
        do {
            reader = try StoreReader(path: db)
            // Read once before the screen goes up: a damaged store is refused with one line.
            _ = try await reader.status(batchLimit: 200, deadLetterLimit: 1)
        } catch {
            throw error.cli(path: db)
        }
        try DemoTerminalCheck.require(command: "monitor")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-monitor.log").path
        try DashboardLogging.bootstrap(toFile: log, level: .warning)
        let monitor = StoreMonitor(reader: reader, interval: .milliseconds(intervalMs))
        let exit: DashboardExit
        do {
            exit = try await runDashboard(snapshots: monitor.snapshots(), mode: .monitor) { _ in
                // Read-only: the reducer sends no engine action in monitor mode, and quit
                // needs no flush here.
            }
        } catch let error as TerminalError {
            throw DemoTerminalCheck.cli(error, command: "monitor")
        }
        switch exit {
        case .quit:
            return
        case .interrupted(let signal):
            throw CLIError(message: "monitor interrupted by signal \(signal); the terminal is restored", exitCode: 128 + signal)
        case .snapshotsEnded:
            throw CLIError.runtime("stopped reading \(db)")
        }
    }
}

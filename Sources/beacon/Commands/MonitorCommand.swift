import ArgumentParser
import Beacon
import BeaconDashboard
import BeaconTerminal
import Foundation
import Logging

/// `beacon monitor`: the dashboard over another process's store.
///
/// When an engine serves the store's control channel (`STORE.control`), the monitor
/// attaches: the header shows the engine's real policy, batch size and offline state, and
/// `f`, `p`, `o`, `+`, `-` act on it through the channel. Otherwise it is read-only: it
/// never writes to the store, and the engine keys only leave a message saying so.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch another process's store on the dashboard; attach to its engine when one serves it.",
        discussion: """
            Polls the store every --interval-ms (a read of its counters row, the recent batches \
            and the newest dead letter) and shows depth, rates, batch history, latency and dead \
            letters. When an engine serves the store (its control socket STORE.control answers), \
            the monitor attaches: the header shows the engine's policy, batch size and offline \
            state, and f, p, o, +, -, P, R and the dead-letter keys act on it, each once \
            confirmed with y (it is a live engine); with --read-only no key changes it. \
            Otherwise it is read-only: engine keys are \
            disabled, and the header shows the policy and batch size as unknown (the store does \
            not record them). Logs go to beacon-monitor.log in the system temp directory.
            """)

    @Option(help: "The store to watch (an SQLite file written by another process); one.")
    var db: [String] = []

    @Flag(help: "Refuse every key that would change the engine, even when one serves the store.")
    var readOnly = false

    @Option(parsing: .unconditional, help: "Milliseconds between polls (20...10000).")
    var intervalMs: Int = 250

    func validate() throws {
        guard !db.isEmpty else { throw ValidationError("missing --db FILE: the store to watch") }
        guard db.count == 1 else {
            throw ValidationError("monitor watches one store; got \(db.count) --db (\(db.joined(separator: ", "))): run one monitor per store")
        }
        guard (20...10_000).contains(intervalMs) else {
            throw ValidationError("--interval-ms must be 20...10000, not \(intervalMs)")
        }
    }

    func run() async throws {
        let db = self.db[0]
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
        // Attached while the engine serving the store answers, read-only while none does:
        // the reducer refuses engine keys on a read-only snapshot, and quit needs no flush.
        let attachment = MonitorAttachment(client: ControlClient(store: db), logger: Logger(label: "beacon.monitor"))
        let exit: DashboardExit
        do {
            var initial = DashboardState(mode: .attached)
            initial.isReadOnlyByChoice = readOnly
            exit = try await runDashboard(
                snapshots: attachment.snapshots(from: monitor.snapshots()), mode: .attached, initialState: initial,
                deadLetters: reader
            ) { action in
                await attachment.perform(action)
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

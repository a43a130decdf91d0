import ArgumentParser
import Beacon
import BeaconDashboard
import BeaconTerminal
import Foundation
import Logging

/// `beacon monitor`: the dashboard over another process's store, or a list of several
/// (`--db A --db B`, `--dir DIR`) with one summary row per engine and Enter to open one.
///
/// When an engine serves the store's control channel (`STORE.control`), the monitor
/// attaches: the header shows the engine's real policy, batch size and offline state, and
/// `f`, `p`, `o`, `+`, `-` act on it through the channel. Otherwise it is read-only: it
/// never writes to the store, and the engine keys only leave a message saying so.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch other processes' stores on the dashboard; attach to their engines when they serve them.",
        discussion: """
            Polls the store every --interval-ms (a read of its counters row, the recent batches \
            and the newest dead letter) and shows depth, rates, batch history, latency and dead \
            letters. When an engine serves the store (its control socket STORE.control answers), \
            the monitor attaches: the header shows the engine's policy, batch size and offline \
            state, and f, p, o, +, -, P, R and the dead-letter keys act on it, each once \
            confirmed with y (it is a live engine); with --read-only no key changes it. \
            Otherwise it is read-only: engine keys are \
            disabled, and the header shows the policy and batch size as unknown (the store does \
            not record them). With several stores (--db more than once, or --dir), the \
            screen lists the engines, one row each: state, depth, oldest pending, rates, dead \
            letters, failing destinations, LOST when an attached engine stops answering, \
            UNREADABLE and why for a file that is not a store (yet), read again at each poll; Enter \
            opens one as above, Esc goes back to the list. Logs go to beacon-monitor.log in \
            the system temp directory.
            """)

    @Option(help: "A store to watch (an SQLite file written by another process); repeat it to watch several on one screen.")
    var db: [String] = []

    @Option(help: "A directory whose stores (*.sqlite files directly in it) are all watched on one screen.")
    var dir: String?

    @Flag(help: "Refuse every key that would change the engine, even when one serves the store.")
    var readOnly = false

    @Option(parsing: .unconditional, help: "Milliseconds between polls (20...10000).")
    var intervalMs: Int = 250

    /// `beacon simulate --watch`: a file whose first line the title shows (the running step).
    @Option(help: .hidden)
    var captionFile: String?

    /// Stores one screen lists at most.
    static let maxStores = 32

    func validate() throws {
        guard !db.isEmpty || dir != nil else { throw ValidationError("missing --db FILE (or --dir DIR): the store to watch") }
        for path in db + [dir].compactMap({ $0 }) {
            guard !path.isEmpty, !path.contains("\0"), path.utf8.count <= 4096 else {
                throw ValidationError("a store path must be 1 to 4096 bytes without NUL")
            }
        }
        let unique = Set(db.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        guard unique.count == db.count else { throw ValidationError("the same store is given twice with --db") }
        guard db.count <= Self.maxStores else { throw ValidationError("monitor lists at most \(Self.maxStores) stores, not \(db.count)") }
        guard (20...10_000).contains(intervalMs) else {
            throw ValidationError("--interval-ms must be 20...10000, not \(intervalMs)")
        }
    }

    func run() async throws {
        let stores = try storePaths()
        var readers: [StoreReader] = []
        if stores.count == 1, let db = stores.first {
            do {
                let reader = try StoreReader(path: db, reopensReplacedFile: true)
                // Read once before the screen goes up: a damaged store is refused with one line.
                _ = try await reader.status(batchLimit: 200, deadLetterLimit: 1)
                readers.append(reader)
            } catch {
                throw error.cli(path: db)
            }
        } else {
            // A fleet shows each store on its own: one that cannot be read (being created,
            // damaged, foreign, a loop of links) is a row saying why, read again at each poll.
            readers = stores.map { StoreReader(watching: $0) }
        }
        try DemoTerminalCheck.require(command: "monitor")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-monitor.log").path
        try DashboardLogging.bootstrap(toFile: log, level: .warning)
        var initial = DashboardState(mode: .attached)
        initial.isReadOnlyByChoice = readOnly
        // Attached while the engine serving a store answers, read-only while none does:
        // the reducer refuses engine keys on a read-only snapshot, and quit needs no flush.
        let engines = zip(stores, readers).map { db, reader in
            // A fleet reads a store only when its files changed (or every 10 s): ten idle
            // stores cost ten `stat`s a poll, not ten reads.
            let monitor = StoreMonitor(
                reader: reader, interval: .milliseconds(intervalMs), unchangedRereadInterval: stores.count > 1 ? .seconds(10) : nil)
            let attachment = MonitorAttachment(client: ControlClient(store: db), logger: Logger(label: "beacon.monitor"))
            return (snapshots: attachment.snapshots(from: monitor.snapshots()), reader: reader, attachment: attachment)
        }
        let exit: DashboardExit
        do {
            if engines.count == 1 {
                let engine = engines[0]
                exit = try await runDashboard(
                    snapshots: engine.snapshots, mode: .attached, initialState: initial, deadLetters: engine.reader,
                    pendingEvents: engine.reader, operatorActions: engine.reader, caption: captionFile.map(Self.caption(from:))
                ) { action in
                    await engine.attachment.perform(action)
                }
            } else {
                let names = FleetState.names(forPaths: stores)
                exit = try await runFleetDashboard(
                    engines: zip(names, engines).map { name, engine in
                        FleetEngine(name: name, snapshots: engine.snapshots, deadLetters: engine.reader, pendingEvents: engine.reader,
                                    operatorActions: engine.reader) { action in
                            await engine.attachment.perform(action)
                        }
                    },
                    initialState: FleetState(names: names, engine: initial))
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
            throw CLIError.runtime("stopped reading \(stores.joined(separator: ", "))")
        }
    }

    /// Reads the caption file's first line at each call: at most 120 bytes, control
    /// characters and invalid UTF-8 replaced; `nil` while the file is missing or empty.
    static func caption(from path: String) -> @Sendable () -> String? {
        { @Sendable in
            guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? handle.close() }  // a read-only handle: nothing to lose on close
            // A file being replaced reads as empty this tick: the title keeps the mode tag.
            let bytes = (try? handle.read(upToCount: 120)) ?? Data()
            let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            let clean = String(line.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
            return clean.isEmpty ? nil : clean
        }
    }

    /// The `--db` stores, then those `--dir` holds (`*.sqlite` directly in it, by name).
    func storePaths() throws -> [String] {
        var paths = db
        if let dir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory) else {
                throw CLIError.runtime("--dir \(dir) does not exist")
            }
            guard isDirectory.boolValue else { throw CLIError.runtime("--dir \(dir) is not a directory (give a store with --db)") }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: dir)
            } catch {
                throw CLIError.runtime("cannot list --dir \(dir): \((error as NSError).localizedDescription)")
            }
            let found = names.filter { $0.hasSuffix(".sqlite") }.sorted().map { (dir as NSString).appendingPathComponent($0) }
            guard !found.isEmpty else { throw CLIError.runtime("no Beacon store (a *.sqlite file) in --dir \(dir)") }
            let known = Set(paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
            paths += found.filter { !known.contains(URL(fileURLWithPath: $0).standardizedFileURL.path) }
        }
        guard paths.count <= Self.maxStores else {
            throw CLIError(message: "monitor lists at most \(Self.maxStores) stores; --dir \(dir ?? "") and --db give \(paths.count)", exitCode: 2)
        }
        return paths
    }
}

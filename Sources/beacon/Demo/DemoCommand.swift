import ArgumentParser
import Beacon
import BeaconCollector
import BeaconDashboard
import Foundation

/// `beacon demo` (and plain `beacon`): the dashboard over an embedded engine, collector
/// and event generator.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The live dashboard over an embedded engine, collector and event generator.",
        discussion: """
            Starts a collector on 127.0.0.1 (a free port, events kept in memory), an engine \
            over an SQLite store sending to it over HTTP, and a generator of synthetic events, \
            then shows the dashboard. Keys: f flush, p policy, o offline, b burst, +/- batch \
            size, r generator rate, c collector faults, P pause/resume the selected destination \
            (Tab selects; a pause is kept in the store), d dead letters, s config sync (with \
            --config), ? help, q quit (after a final flush of at most 2 s). The store stays on disk after the demo (its path is in the header); \
            logs go to a file beside it (beacon-demo.log, warnings and above).
            With --config FILE the collector also serves FILE ({"settings": {...}}) at \
            /v1/config, re-read when it changes, and the engine polls it every \
            --config-interval (default 5s) and applies it live; the header then shows the \
            config version and the last sync. Without --config there is no remote config.
            With --destinations 2 a second collector on 127.0.0.1 takes a copy of every \
            event as destination "backup" (with its own enrichment: a context field), with \
            its own progress, backoff and state; collector faults (c) apply to the first \
            destination only, so one can fail while the other keeps flowing.
            Needs a terminal; for scripts use 'beacon track' and 'beacon flush'.
            """)

    @Option(parsing: .unconditional, help: "The flush policy, e.g. 'manual', 'count 50', 'every 5s', 'count 100 or 5s'.")
    var policy: String = FlushPolicy.default.description

    @Option(parsing: .unconditional, help: "Events per batch at most (1...10000).")
    var batchSize: Int = 100

    @Option(parsing: .unconditional, help: "Synthetic events per second (0: off; r cycles off/10/100/1000).")
    var rate: Int = 10

    @Option(help: "The store (an SQLite file; default: a fresh file under the system temp directory).")
    var db: String?

    @Option(help: "The generator's event catalogue (JSON; default: Assets/demo-events.json or a built-in one).")
    var catalogue: String?

    @Option(help: "A remote-config file {\"settings\": {...}} the demo's collector serves and its engine polls (default: none, no remote config).")
    var config: String?

    @Option(parsing: .unconditional, help: "Destinations: 1 (one collector) or 2 (a second collector, 'backup', gets a copy of every event).")
    var destinations: Int = 1

    @Option(parsing: .unconditional, help: EngineFlags.maxConcurrentRequestsHelp)
    var maxConcurrentRequests: Int = 1

    @Option(parsing: .unconditional, help: "Time between config polls, with its unit: 500ms, 5s, 2m, 1h (100ms...1h; needs --config; default 5s).")
    var configInterval: String?

    @OptionGroup(title: "Queue bounds")
    var bounds: QueueBoundsOptions

    func validate() throws {
        try EngineFlags.validate(policy: policy, batchSize: batchSize)
        try EngineFlags.validate(maxConcurrentRequests: maxConcurrentRequests)
        guard (0...100_000).contains(rate) else {
            throw ValidationError("--rate must be 0...100000 events per second, not \(rate)")
        }
        guard (1...2).contains(destinations) else {
            throw ValidationError("--destinations must be 1 or 2, not \(destinations)")
        }
        _ = try remoteConfig
    }

    /// `--config` and `--config-interval`, checked (the file is read as the collector will).
    var remoteConfig: DemoRemoteConfig? {
        get throws(ValidationError) {
            guard let config else {
                if configInterval != nil { throw ValidationError("--config-interval needs --config FILE (the config the demo serves)") }
                return nil
            }
            do {
                try Collector.checkConfigFile(config)
            } catch {
                throw ValidationError("--config: \(error.message)")
            }
            let interval = try configInterval.map(DemoRemoteConfig.interval(parsing:)) ?? DemoRemoteConfig.defaultInterval
            return DemoRemoteConfig(path: config, interval: interval)
        }
    }

    func run() async throws {
        // Checked already in validate(); parsed again here for the value.
        let flushPolicy = try FlushPolicy(parsing: policy)
        let remoteConfig = try self.remoteConfig
        let (events, _) = try DemoCatalogue.load(explicitPath: self.catalogue)
        try DemoTerminalCheck.require(command: "demo")
        let files = try DemoFiles.make(db: db)
        try DashboardLogging.bootstrap(toFile: files.log, level: .warning)
        let session = DemoSession(
            files: files, catalogue: events,
            settings: EngineSettings(policy: flushPolicy, batchSize: batchSize), rate: rate, remoteConfig: remoteConfig,
            withBackup: destinations == 2, maxConcurrentRequests: maxConcurrentRequests, bounds: bounds)
        try await session.run()
        Output.line("demo ended; the store is \(files.store) (see 'beacon status --db \(files.store)'), the log \(files.log)")
    }
}

/// The demo's files: the store and the log beside it.
struct DemoFiles {
    var store: String
    var log: String

    /// `--db FILE` (the log beside it), or both in a fresh directory under the temp dir.
    static func make(db: String?) throws(CLIError) -> DemoFiles {
        if let db {
            let directory = URL(fileURLWithPath: db).deletingLastPathComponent()
            return DemoFiles(store: db, log: directory.appendingPathComponent("beacon-demo.log").path)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-demo-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .runtime("cannot create a directory for the demo store under \(FileManager.default.temporaryDirectory.path): \(error.localizedDescription)")
        }
        return DemoFiles(
            store: directory.appendingPathComponent("beacon.sqlite").path,
            log: directory.appendingPathComponent("beacon-demo.log").path)
    }
}

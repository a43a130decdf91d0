import Beacon
import BeaconCollector
import BeaconDashboard
import BeaconTerminal
import Logging
import ServiceLifecycle

/// One run of `beacon demo`: starts the collector, the engine and the generator, runs the
/// dashboard, and tears all of it down however the dashboard ends.
struct DemoSession {
    var files: DemoFiles
    var catalogue: DemoCatalogue
    var settings: EngineSettings
    var rate: Int
    /// The config the collector serves and the engine polls (`--config`), if any.
    var remoteConfig: DemoRemoteConfig?
    /// Whether a second collector takes a copy of every event (`--destinations 2`).
    var withBackup: Bool
    /// Batches in flight at once per destination (`--max-concurrent-requests`).
    var maxConcurrentRequests: Int
    /// The queue's bounds (`--max-queue-events`, `--max-queue-bytes`).
    var bounds: QueueBoundsOptions

    /// The final flush on quit is bounded by this (the engine's own bound).
    static let finalFlushTimeout = Duration.seconds(2)

    init(
        files: DemoFiles, catalogue: DemoCatalogue, settings: EngineSettings, rate: Int, remoteConfig: DemoRemoteConfig? = nil,
        withBackup: Bool = false, maxConcurrentRequests: Int = 1, bounds: QueueBoundsOptions = QueueBoundsOptions()
    ) {
        self.files = files
        self.catalogue = catalogue
        self.settings = settings
        self.rate = rate
        self.remoteConfig = remoteConfig
        self.withBackup = withBackup
        self.maxConcurrentRequests = maxConcurrentRequests
        self.bounds = bounds
    }

    /// The second destination's name (`--destinations 2`).
    static let backupName = "backup"

    /// A destination of the demo; `maxConcurrentRequests` was checked with the flags.
    static func destination(
        name: String = Destination.defaultName, sender: any EventSender, enrichment: Enrichment = [], maxConcurrentRequests: Int
    ) throws -> Destination {
        do {
            return try Destination(name: name, sender: sender, enrichment: enrichment, maxConcurrentRequests: maxConcurrentRequests)
        } catch {
            throw CLIError.badInput("--max-concurrent-requests: \(error.message)")
        }
    }

    func run() async throws {
        let logger = Logger(label: "beacon.demo")
        // Before anything else touches the store: one engine serves it.
        let lock = try StoreLock.take(forStore: files.store, role: "beacon demo")
        defer { withExtendedLifetime(lock) {} }
        let queue: SQLiteEventQueue
        do {
            var configuration = SQLiteEventQueue.Configuration()
            bounds.apply(to: &configuration)
            queue = try SQLiteEventQueue(path: files.store, configuration: configuration)
        } catch {
            throw error.cli(path: files.store)
        }
        let collector: Collector
        do {
            var configuration = CollectorConfiguration(host: "127.0.0.1", port: 0)
            configuration.configFeedPath = remoteConfig?.path
            collector = try Collector(configuration: configuration)
        } catch let error as CollectorSetupError where remoteConfig != nil {
            throw CLIError.badInput("--config: \(error.message)")  // the file broke since the flags were checked
        } catch {
            throw CLIError.runtime("cannot start the demo collector: \(error)")
        }
        let backup: Collector?
        do {
            backup = withBackup ? try Collector(configuration: CollectorConfiguration(host: "127.0.0.1", port: 0)) : nil
        } catch {
            throw CLIError.runtime("cannot start the demo's backup collector: \(error)")
        }
        // In a service group so that quitting shuts them down gracefully (cancelling
        // makes the HTTP server log an error on the way out).
        let collectorGroup = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [collector] + (backup.map { [$0] } ?? []), logger: logger))
        let collectorTask = Task { try await collectorGroup.run() }
        let port: Int
        let backupPort: Int?
        do {
            port = try await collector.port
            backupPort = try await backup?.port
        } catch {
            collectorTask.cancel()
            throw CLIError.runtime("the demo collector could not listen on 127.0.0.1: \(error)")
        }
        let sender = try Senders.makeHTTP(endpoint: "http://127.0.0.1:\(port)", writeKey: nil, timeout: .seconds(5))
        var destinations = [try Self.destination(sender: sender, maxConcurrentRequests: maxConcurrentRequests)]
        if let backupPort {
            let backupSender = try Senders.makeHTTP(endpoint: "http://127.0.0.1:\(backupPort)", writeKey: nil, timeout: .seconds(5))
            destinations.append(try Self.destination(
                name: Self.backupName, sender: backupSender, enrichment: [.context(["copy": "beacon-demo-backup"])],
                maxConcurrentRequests: maxConcurrentRequests))
        }
        // The demo owns its store: a destination from an earlier run that is not in this
        // one would keep its events forever.
        for name in queue.depth.destinations.keys where !destinations.contains(where: { $0.name == name }) {
            do {
                try await queue.unregister(destination: name)
            } catch {
                throw error.cli
            }
        }
        let engine = BeaconEngine(
            queue: queue, destinations: destinations, settings: settings,
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(250), maxDelay: .seconds(5)), clock: ContinuousClock(),
            finalFlushTimeout: Self.finalFlushTimeout, logger: logger)
        let syncer: RemoteConfigSyncer<ContinuousClock>?
        do {
            syncer = try remoteConfig?.makeSyncer(engine: engine, store: files.store, port: port, logger: logger)
        } catch {
            await collectorGroup.triggerGracefulShutdown()
            throw error
        }
        let engineTask = Task { try await engine.run() }
        // `beacon ctl --db STORE` and scripts command this engine through its control socket.
        // The store's lock, checked every 2 s and before each command, as an agent's.
        let lockWatch = StoreLockWatch(lock: lock, logger: logger)
        let lockWatchTask = Task { await lockWatch.run() }
        defer { lockWatchTask.cancel() }
        let control: ControlServer?
        do {
            control = try await engine.serveControl(watch: lockWatch, logger: logger)
        } catch {
            logger.warning("the demo runs without its control channel", metadata: ["error": "\(error)"])
            control = nil
        }
        let syncerTask = syncer.map { syncer in Task { try await syncer.run() } }
        let generator = DemoGenerator(tracker: engine.tracker, catalogue: catalogue, rate: rate, logger: logger)
        let generatorTask = Task { await generator.run() }
        let controls = DemoControls(engine: engine, collector: collector, generator: generator, logger: logger, syncer: syncer)

        var initial = DashboardState(mode: .demo)
        initial.generatorRate = rate
        initial.batchSize = settings.batchSize
        let exit: DashboardExit
        // Deliberate: a store the reader cannot open leaves the pending and log views saying "not available".
        let reader = try? StoreReader(path: files.store)
        do {
            exit = try await runDashboard(
                snapshots: await engine.observer.snapshots(), mode: .demo, initialState: initial, deadLetters: queue,
                // Read beside the engine's writer, as a monitor would: the drain never waits.
                pendingEvents: reader, operatorActions: reader
            ) { action in await controls.perform(action) }
        } catch {
            syncerTask?.cancel()
            await control?.close()
            await Self.tearDown(engine: engine, engineTask: engineTask, generator: generator, generatorTask: generatorTask, collectorGroup: collectorGroup, collectorTask: collectorTask)
            if let error = error as? TerminalError { throw DemoTerminalCheck.cli(error, command: "demo") }
            throw error
        }
        // Bounded: a store that keeps failing must not hold the quit (what is left is counted as dropped).
        if await !queue.waitForPendingWrites(progressTimeout: Self.finalFlushTimeout) {
            logger.warning("quit with events not yet stored: the store made no progress", metadata: ["store": "\(files.store)"])
        }
        syncerTask?.cancel()
        await control?.close()
        await Self.tearDown(engine: engine, engineTask: engineTask, generator: generator, generatorTask: generatorTask, collectorGroup: collectorGroup, collectorTask: collectorTask)
        switch exit {
        case .quit:
            return
        case .interrupted(let signal):
            throw CLIError(message: "demo interrupted by signal \(signal); the terminal is restored", exitCode: 128 + signal)
        case .snapshotsEnded:
            if case .failure(let error) = await engineTask.result {
                throw CLIError.runtime("the demo engine stopped: \(error)")
            }
            throw CLIError.runtime("the demo engine stopped unexpectedly; see the log \(files.log)")
        }
    }

    /// Stops the generator, lets the engine do its bounded final flush, then stops the
    /// collector. Every wait is bounded, so a hanging send cannot hold the exit.
    static func tearDown(
        engine: BeaconEngine<ContinuousClock>, engineTask: Task<Void, any Error>, generator: DemoGenerator,
        generatorTask: Task<Void, Never>, collectorGroup: ServiceGroup, collectorTask: Task<Void, any Error>
    ) async {
        generatorTask.cancel()
        generator.finish()
        await engine.beginShutdown()
        if await !DemoWait.finished(engineTask, within: finalFlushTimeout + .seconds(1)) {
            engineTask.cancel()
            _ = await DemoWait.finished(engineTask, within: .seconds(1))
        }
        await collectorGroup.triggerGracefulShutdown()
        if await !DemoWait.finished(collectorTask, within: .seconds(2)) {
            collectorTask.cancel()
        }
    }
}

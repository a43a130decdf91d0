import BeaconWire
import Logging
import ServiceLifecycle

/// An engine: a tracker, one batcher per destination, an observer, and live settings,
/// over one queue. Run it as a service; it drains on graceful shutdown.
///
/// Each destination has its own progress through the queue, its own backoff and paused
/// state, and its own enrichment: one that is down never holds back the others, and an
/// event leaves the store once every destination has it (or dead-lettered it).
///
/// ```swift
/// let queue = try SQLiteEventQueue(path: "beacon.sqlite")
/// let engine = BeaconEngine(queue: queue, destination: Destination(sender: try HTTPSender(...)))
/// let group = ServiceGroup(services: [engine], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try engine.tracker.track("Signed Up", properties: ["plan": "pro"])
/// try await group.run()
/// ```
public final class BeaconEngine<C: Clock>: Service, Sendable where C.Duration == Duration {
    /// Where `track` calls go.
    public let tracker: Tracker
    /// Snapshots of everything the engine does.
    public let observer: TrackingObserver
    /// One batcher per destination, in the order given.
    public let batchers: [Batcher<C>]
    /// The destinations, in the order given.
    public let destinations: [Destination]
    /// Live settings: policy, batch size, offline.
    public let settings: SettingsStore
    /// The queue.
    public let queue: any EventQueue
    /// The queue's counters when this engine was made: what ``statusReport()`` and
    /// ``metricsReporter(factory:logger:)`` count each destination's events from, so that
    /// `ctl status`, `/metrics` and the console count "since this engine started" alike.
    public let startDepth: QueueDepth
    /// Blocklist and sampling rules applied at `track` (set by remote configuration).
    public let filter: EventFilter
    let logger: Logger
    /// A store read failing for status reports, logged once while it lasts (`watch` asks
    /// twice a second).
    let statusReadProblem = LastingProblem()

    /// An engine sending to one destination.
    public convenience init(
        queue: any EventQueue, destination: Destination, settings: EngineSettings = EngineSettings(),
        retryPolicy: RetryPolicy = RetryPolicy(), validator: EventValidator = EventValidator(), clock: C,
        finalFlushTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "beacon"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observerSleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        wallClock: @escaping @Sendable () -> Timestamp = { .now() }
    ) {
        self.init(
            queue: queue, destinations: [destination], settings: settings, retryPolicy: retryPolicy, validator: validator,
            clock: clock, finalFlushTimeout: finalFlushTimeout, logger: logger, random: random, observerSleep: observerSleep,
            wallClock: wallClock)
    }

    /// An engine sending to several destinations.
    ///
    /// - Precondition: `destinations` is not empty and their names are distinct (the
    ///   queue keeps each one's progress under its name).
    /// - Parameter wallClock: the observer's time (ages of pending events, stalls).
    public init(
        queue: any EventQueue, destinations: [Destination], settings: EngineSettings = EngineSettings(),
        retryPolicy: RetryPolicy = RetryPolicy(), validator: EventValidator = EventValidator(), clock: C,
        finalFlushTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "beacon"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observerSleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        wallClock: @escaping @Sendable () -> Timestamp = { .now() }
    ) {
        precondition(!destinations.isEmpty, "an engine needs at least one destination")
        precondition(Set(destinations.map(\.name)).count == destinations.count, "destination names must be distinct")
        let store = SettingsStore(settings)
        let endpoint = destinations.count == 1
            ? destinations[0].sender.endpointDescription : "\(destinations.count) destinations"
        let facts = StoreFactsReader(queue: queue, logger: logger)
        let names = EventNameCounter()
        // The disk under a store on a file; a queue in memory has none.
        let location = queue.location
        let disk: (@Sendable () -> StoreDisk?)? = queue is SQLiteEventQueue ? { @Sendable in StoreDisk.read(storePath: location) } : nil
        let observer = TrackingObserver(
            settings: settings, depth: queue.depth, storePath: queue.location,
            endpoint: endpoint, depthProvider: { queue.depth }, sleep: observerSleep,
            oldestPendingProvider: { await facts.oldestPending() },
            deadLettersProvider: { await facts.deadLetters() }, wallClock: wallClock, queueBounds: queue.bounds,
            queueFacts: queue.facts(wake: .notForCommits), eventNamesProvider: { names.current },
            diskProvider: disk)
        self.queue = queue
        startDepth = queue.depth
        self.settings = store
        self.observer = observer
        self.logger = logger
        let filter = EventFilter()
        self.filter = filter
        self.tracker = Tracker(queue: queue, validator: validator, observer: observer, filter: filter, eventNames: names)
        self.destinations = destinations
        self.batchers = destinations.map { destination in
            Batcher(
                queue: queue, destination: destination, settings: store, retryPolicy: retryPolicy, clock: clock,
                observer: observer, finalFlushTimeout: finalFlushTimeout, logger: logger, random: random)
        }
        store.onChange { settings in observer.report(.settings(settings)) }
    }

    /// The batcher of the first destination.
    public var batcher: Batcher<C> { batchers[0] }

    /// Runs the observer and the batchers until graceful shutdown (then each drains,
    /// bounded by the final flush timeout) or cancellation.
    public func run() async throws {
        await restoreRecordedPauses()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.observer.run() }
            group.addTask { await self.watchOtherProcesses() }
            try await withThrowingTaskGroup(of: Void.self) { batchersGroup in
                for batcher in batchers {
                    batchersGroup.addTask { try await batcher.run() }
                }
                try await batchersGroup.waitForAll()
            }
            group.cancelAll()
        }
    }

    /// How often the engine looks for events that other processes committed to its store
    /// (``EventQueue/refreshFromOtherProcesses()``).
    public static var otherProcessesInterval: Duration { .milliseconds(500) }

    /// Events that another process commits to the store (`beacon track` beside a running
    /// agent) wake the batchers within ``otherProcessesInterval``, as the engine's own
    /// commits do at once; otherwise they would wait for the next event of its own.
    func watchOtherProcesses() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.otherProcessesInterval)
            } catch {
                return  // cancelled: the engine stops
            }
            _ = await queue.refreshFromOtherProcesses()
        }
    }

    /// Stops the batchers' loops after a final drain (what graceful shutdown does).
    public func beginShutdown() async {
        for batcher in batchers { await batcher.beginShutdown() }
    }

    // MARK: Commands (the dashboard's and the API's)

    /// Drains the queue now, to every destination.
    public func flush() async {
        for batcher in batchers { await batcher.flush() }
    }

    /// Changes the flush policy.
    public func setPolicy(_ policy: FlushPolicy) { settings.update { $0.policy = policy } }

    /// Changes the batch size (events per batch at most).
    public func setBatchSize(_ size: Int) { settings.update { $0.batchSize = size } }

    /// Stops sending (`true`) or starts again and drains the backlog (`false`).
    public func setOffline(_ offline: Bool) { settings.update { $0.isOffline = offline } }

    /// Resumes every destination: lifts operator pauses and pauses for refused
    /// credentials, and drains what waited (unless offline).
    public func resume() async {
        await resume(Array(destinations.indices))
    }
}

extension BeaconEngine where C == ContinuousClock {
    /// An engine on the real clock.
    public convenience init(
        queue: any EventQueue, destination: Destination, settings: EngineSettings = EngineSettings(),
        retryPolicy: RetryPolicy = RetryPolicy(), logger: Logger = Logger(label: "beacon")
    ) {
        self.init(
            queue: queue, destination: destination, settings: settings, retryPolicy: retryPolicy, clock: ContinuousClock(),
            logger: logger)
    }

    /// An engine on the real clock, sending to several destinations.
    public convenience init(
        queue: any EventQueue, destinations: [Destination], settings: EngineSettings = EngineSettings(),
        retryPolicy: RetryPolicy = RetryPolicy(), logger: Logger = Logger(label: "beacon")
    ) {
        self.init(
            queue: queue, destinations: destinations, settings: settings, retryPolicy: retryPolicy, clock: ContinuousClock(),
            logger: logger)
    }
}

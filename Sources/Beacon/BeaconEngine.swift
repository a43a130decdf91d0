import BeaconWire
import Logging
import ServiceLifecycle

/// An engine: a tracker, a batcher for one destination, an observer, and live settings,
/// over one queue. Run it as a service; it drains on graceful shutdown.
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
    /// The batcher of the destination.
    public let batcher: Batcher<C>
    /// Live settings: policy, batch size, offline.
    public let settings: SettingsStore
    /// The queue.
    public let queue: any EventQueue
    /// Blocklist and sampling rules applied at `track` (set by remote configuration).
    public let filter: EventFilter

    public init(
        queue: any EventQueue, destination: Destination, settings: EngineSettings = EngineSettings(),
        retryPolicy: RetryPolicy = RetryPolicy(), validator: EventValidator = EventValidator(), clock: C,
        finalFlushTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "beacon"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observerSleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        let store = SettingsStore(settings)
        let observer = TrackingObserver(
            settings: settings, depth: queue.depth, storePath: queue.location,
            endpoint: destination.sender.endpointDescription, depthProvider: { queue.depth }, sleep: observerSleep)
        self.queue = queue
        self.settings = store
        self.observer = observer
        let filter = EventFilter()
        self.filter = filter
        self.tracker = Tracker(queue: queue, validator: validator, observer: observer, filter: filter)
        self.batcher = Batcher(
            queue: queue, destination: destination, settings: store, retryPolicy: retryPolicy, clock: clock,
            observer: observer, finalFlushTimeout: finalFlushTimeout, logger: logger, random: random)
        queue.addListener { event in observer.report(.queue(event)) }
        store.onChange { settings in observer.report(.settings(settings)) }
    }

    /// Runs the observer and the batcher until graceful shutdown (then drains, bounded by
    /// the final flush timeout) or cancellation.
    public func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.observer.run() }
            try await batcher.run()
            group.cancelAll()
        }
    }

    // MARK: Commands (the dashboard's and the API's)

    /// Drains the queue now.
    public func flush() async { await batcher.flush() }

    /// Changes the flush policy.
    public func setPolicy(_ policy: FlushPolicy) { settings.update { $0.policy = policy } }

    /// Changes the batch size (events per batch at most).
    public func setBatchSize(_ size: Int) { settings.update { $0.batchSize = size } }

    /// Stops sending (`true`) or starts again and drains the backlog (`false`).
    public func setOffline(_ offline: Bool) { settings.update { $0.isOffline = offline } }

    /// Resumes a destination paused by refused credentials.
    public func resume() async { await batcher.resume() }
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
}

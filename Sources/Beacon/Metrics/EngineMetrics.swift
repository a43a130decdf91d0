import BeaconWire
import CoreMetrics
import Logging
import ServiceLifecycle
import Synchronization

/// Reports an engine's state through swift-metrics, per destination, so a service's
/// existing Prometheus or OpenTelemetry export carries it. Fed by the engine's
/// ``TrackingObserver``: it reads each snapshot the observer publishes (at least one a
/// second) and the queue's counters, and does nothing in between.
///
/// Instruments, each with the dimension `destination`:
///
/// | name | kind | meaning |
/// |---|---|---|
/// | `beacon_engine_pending_events` | gauge | events queued that the destination is not done with |
/// | `beacon_engine_oldest_pending_age_seconds` | gauge | how long the oldest of them has waited (0 when none or unknown) |
/// | `beacon_engine_delivered_events_total` | counter | events delivered |
/// | `beacon_engine_retried_batches_total` | counter | sends that failed and will be retried |
/// | `beacon_engine_dead_lettered_events_total` | counter | events refused for good (dead letters) |
/// | `beacon_engine_dropped_events_total` | counter | events the overflow policy dropped before delivery |
/// | `beacon_engine_batch_duration_seconds` | timer | time of each delivered batch's send |
/// | `beacon_engine_destination_state` | gauge | 1 for the state the destination is in, 0 for the others (dimension `state`: ``stateNames``) |
/// | `beacon_engine_stalled` | gauge | 1 while events wait over a minute and nothing was delivered in a minute (never when paused on purpose or offline) |
/// | `beacon_engine_consecutive_failures` | gauge | failed sends in a row |
/// | `beacon_engine_last_success_timestamp_seconds` | gauge | when a batch was last delivered (absent until one is) |
///
/// And without dimensions: `beacon_engine_queue_events`, `beacon_engine_queue_bytes`,
/// `beacon_engine_queue_capacity_events`, `beacon_engine_queue_capacity_bytes`,
/// `beacon_engine_queue_full` (1 when a bound is reached, ``QueueBounds/isFull(_:)``),
/// `beacon_engine_dead_letters` (held now), `beacon_engine_offline` and the counter
/// `beacon_engine_refused_events_total` (events refused at the queue's bound: the agent
/// answers 503 `queue_full`, nothing is dropped). ``help`` has each one's description.
///
/// Counters count from the engine's start (``BeaconEngine/startDepth``), as `ctl status`
/// does. Turn it on with one line, next to the engine:
///
/// ```swift
/// let group = ServiceGroup(services: [engine, engine.metricsReporter()], gracefulShutdownSignals: [.sigterm], logger: logger)
/// ```
public final class EngineMetrics: Service, Sendable {
    /// The prefix of every instrument's label.
    public static let prefix = "beacon_engine"

    private let observer: TrackingObserver
    private let queue: any EventQueue
    private let instruments: [String: Instruments]
    private let queueGauges: QueueGauges
    private let refused: Counter
    private let factory: any MetricsFactory
    private let state: Mutex<State>
    private let logger: Logger

    /// One destination's instruments.
    private struct Instruments: Sendable {
        let pending: Gauge
        let oldestAge: Gauge
        let delivered: Counter
        let retried: Counter
        let deadLettered: Counter
        let dropped: Counter
        let latency: CoreMetrics.Timer
        /// By ``EngineMetrics/stateNames``.
        let states: [String: Gauge]
        let stalled: Gauge
        let failures: Gauge
        let failureRatio: Gauge
        let failingSince: Gauge
    }

    /// The queue's gauges, without dimensions.
    private struct QueueGauges: Sendable {
        let events: Gauge
        let bytes: Gauge
        let capacityEvents: Gauge
        let capacityBytes: Gauge
        let full: Gauge
        let deadLetters: Gauge
        let offline: Gauge
        let storeBytes: Gauge
        let diskFreeBytes: Gauge
    }

    /// The values of `beacon_engine_destination_state`'s `state` dimension: the status
    /// report's codes (``EngineStatusReport/Destination/Code``).
    public static let stateNames = EngineStatusReport.Destination.Code.allCases.map(\.rawValue)

    /// A destination state's name in ``stateNames``.
    static func stateName(_ state: DestinationStatus.State) -> String {
        EngineStatusReport.Destination.code(of: state).rawValue
    }

    /// The `# HELP` text of every instrument, by full name (for an exporter that takes it,
    /// such as `beacon agent`'s `/metrics`).
    public static let help: [String: String] = [
        "beacon_engine_pending_events": "Events queued that the destination is not done with.",
        "beacon_engine_oldest_pending_age_seconds": "How long the oldest event the destination is not done with has waited (0 when none or unknown).",
        "beacon_engine_delivered_events_total": "Events delivered to the destination.",
        "beacon_engine_retried_batches_total": "Sends to the destination that failed and will be retried.",
        "beacon_engine_dead_lettered_events_total": "Events the destination refused for good (moved to dead letters).",
        "beacon_engine_dropped_events_total": "Events the queue's overflow policy dropped before the destination had them.",
        "beacon_engine_batch_duration_seconds": "Time of each delivered batch's send.",
        "beacon_engine_destination_state": "1 for the state the destination is in (starting, idle, sending, backing_off, paused_operator, paused_credentials, offline), 0 for the others.",
        "beacon_engine_stalled": "1 while the destination's oldest event has waited over a minute and nothing was delivered in a minute (never when paused on purpose or offline).",
        "beacon_engine_consecutive_failures": "Failed sends in a row to the destination.",
        "beacon_engine_request_failure_ratio": "The share of the destination's last 20 requests that failed, 0 to 1 (0 before any).",
        "beacon_engine_failing_since_timestamp_seconds": "When the destination's first failed request after its last delivery ended (Unix time; 0 while it is not failing).",
        "beacon_engine_last_success_timestamp_seconds": "When a batch was last delivered to the destination (Unix time; absent until one is).",
        "beacon_engine_queue_events": "Events in the queue (committed and in the memory buffer).",
        "beacon_engine_queue_bytes": "Bytes of event JSON in the queue.",
        "beacon_engine_queue_capacity_events": "Events the queue holds at most (--max-queue-events).",
        "beacon_engine_queue_capacity_bytes": "Bytes of event JSON the queue holds at most (--max-queue-bytes).",
        "beacon_engine_queue_full": "1 while the queue is full: at a bound, or without room for the last post the agent's ingest refused (it refuses new events; a tracker in process pushes the oldest out).",
        "beacon_engine_dead_letters": "Dead letters held in the store now.",
        "beacon_engine_refused_events_total": "Events refused at the queue's bound (the agent answers 503 queue_full; nothing is stored, nothing dropped).",
        "beacon_engine_offline": "1 while the engine is offline (sends nothing).",
        "beacon_engine_store_bytes": "Bytes of the store's files (database, write-ahead log, index; 0 for a queue in memory).",
        "beacon_engine_disk_free_bytes": "Bytes free on the store's filesystem for a writer that is not root (0 when not known).",
    ]

    private struct State {
        /// Each destination's counters as last reported.
        var counted: [String: DestinationDepth]
        /// Ids of the batch records already counted (those in the last snapshot's history).
        var seenBatches: Set<Int64> = []
        /// `beacon_engine_last_success_timestamp_seconds`, made once a success is known.
        var lastSuccess: [String: Gauge] = [:]
        /// The engine's refusals at the bound as last reported.
        var refused = 0
    }

    /// A reporter for the destinations named `destinations`, recording through `factory`.
    ///
    /// - Parameter baseline: the queue's counters the event counters count from (the
    ///   engine's ``BeaconEngine/startDepth``, so that they match its status report);
    ///   default the queue's counters now.
    public init(
        observer: TrackingObserver, queue: any EventQueue, destinations: [String], baseline: QueueDepth? = nil,
        factory: any MetricsFactory = MetricsSystem.factory,
        logger: Logger = Logger(label: "beacon.metrics")
    ) {
        self.observer = observer
        self.queue = queue
        self.logger = logger
        self.factory = factory
        var instruments: [String: Instruments] = [:]
        for name in destinations {
            let dimensions = [("destination", name)]
            func label(_ name: String) -> String { "\(Self.prefix)_\(name)" }
            instruments[name] = Instruments(
                pending: Gauge(label: label("pending_events"), dimensions: dimensions, factory: factory),
                oldestAge: Gauge(label: label("oldest_pending_age_seconds"), dimensions: dimensions, factory: factory),
                delivered: Counter(label: label("delivered_events_total"), dimensions: dimensions, factory: factory),
                retried: Counter(label: label("retried_batches_total"), dimensions: dimensions, factory: factory),
                deadLettered: Counter(label: label("dead_lettered_events_total"), dimensions: dimensions, factory: factory),
                dropped: Counter(label: label("dropped_events_total"), dimensions: dimensions, factory: factory),
                latency: CoreMetrics.Timer(label: label("batch_duration_seconds"), dimensions: dimensions, factory: factory),
                states: Dictionary(uniqueKeysWithValues: Self.stateNames.map { state in
                    (state, Gauge(label: label("destination_state"), dimensions: dimensions + [("state", state)], factory: factory))
                }),
                stalled: Gauge(label: label("stalled"), dimensions: dimensions, factory: factory),
                failures: Gauge(label: label("consecutive_failures"), dimensions: dimensions, factory: factory),
                failureRatio: Gauge(label: label("request_failure_ratio"), dimensions: dimensions, factory: factory),
                failingSince: Gauge(label: label("failing_since_timestamp_seconds"), dimensions: dimensions, factory: factory))
        }
        self.instruments = instruments
        func gauge(_ name: String) -> Gauge { Gauge(label: "\(Self.prefix)_\(name)", factory: factory) }
        queueGauges = QueueGauges(
            events: gauge("queue_events"), bytes: gauge("queue_bytes"), capacityEvents: gauge("queue_capacity_events"),
            capacityBytes: gauge("queue_capacity_bytes"), full: gauge("queue_full"), deadLetters: gauge("dead_letters"),
            offline: gauge("offline"), storeBytes: gauge("store_bytes"), diskFreeBytes: gauge("disk_free_bytes"))
        refused = Counter(label: "\(Self.prefix)_refused_events_total", factory: factory)
        let depth = baseline ?? queue.depth
        state = Mutex(State(counted: Dictionary(uniqueKeysWithValues: destinations.map { name in
            (name, depth.destinations[name] ?? DestinationDepth(pending: depth.events))
        })))
    }

    /// Reports every snapshot the observer publishes until graceful shutdown or cancellation.
    public func run() async {
        let snapshots = await observer.snapshots()
        for await snapshot in snapshots.cancelOnGracefulShutdown() {
            await update(with: snapshot)
        }
    }

    /// Records ``QueueAdministration/isFull`` now, between snapshots: for a writer refused
    /// at the bound, so that `/metrics` says full by the time the refused client asks.
    public func recordFullness() {
        guard queue.bounds != nil else { return }
        queueGauges.full.record(queue.isFull ? 1 : 0)
    }

    /// Reports one snapshot and the queue's counters now (what ``run()`` does for each).
    public func update(with snapshot: EngineSnapshot) async {
        let depth = queue.depth
        let (increments, newBatches, refusedStep) = state.withLock { state in
            var increments: [(Instruments, DestinationDepth)] = []
            for (name, instrument) in instruments {
                let now = depth.destinations[name] ?? DestinationDepth(pending: depth.events)
                let before = state.counted[name] ?? DestinationDepth()
                // A counter that went down (the destination was unregistered and started
                // again) is a new baseline, not a negative increment.
                // Counters read back from the store: no trap on a damaged one's extremes.
                func increase(_ now: Int, _ before: Int) -> Int {
                    let (difference, overflow) = now.subtractingReportingOverflow(before)
                    return overflow ? 0 : max(0, difference)
                }
                let step = DestinationDepth(
                    pending: now.pending, delivered: increase(now.delivered, before.delivered),
                    deadLettered: increase(now.deadLettered, before.deadLettered), filtered: 0,
                    dropped: increase(now.dropped, before.dropped))
                state.counted[name] = now
                increments.append((instrument, step))
            }
            let ids = Set(snapshot.recentBatches.map(\.id))
            let fresh = snapshot.recentBatches.filter { !state.seenBatches.contains($0.id) }
            state.seenBatches = ids
            // The observer's count of this engine's refusals, as `ctl status` gives it.
            let (refusedStep, overflow) = snapshot.totals.refused.subtractingReportingOverflow(state.refused)
            state.refused = snapshot.totals.refused
            return (increments, fresh, overflow ? 0 : max(0, refusedStep))
        }
        if refusedStep > 0 { refused.increment(by: refusedStep) }
        for (instrument, step) in increments {
            instrument.pending.record(step.pending)
            if step.delivered > 0 { instrument.delivered.increment(by: step.delivered) }
            if step.deadLettered > 0 { instrument.deadLettered.increment(by: step.deadLettered) }
            if step.dropped > 0 { instrument.dropped.increment(by: step.dropped) }
        }
        for record in newBatches {
            guard let instrument = instruments[record.destination] else { continue }
            switch record.outcome {
            case .sent: instrument.latency.recordNanoseconds(record.duration.inNanoseconds)
            case .retry: instrument.retried.increment()
            case .split, .deadLettered, .paused, .filtered: break
            }
        }
        reportAges(snapshot)
        reportStates(snapshot)
        reportQueue(depth, offline: snapshot.isOffline)
        queueGauges.storeBytes.record(snapshot.disk?.storeBytes ?? 0)
        queueGauges.diskFreeBytes.record(snapshot.disk?.freeBytes ?? 0)
    }

    /// Sets each destination's state, stalled and failure gauges, and its last success
    /// once one is known.
    private func reportStates(_ snapshot: EngineSnapshot) {
        for destination in snapshot.destinations {
            guard let instrument = instruments[destination.name] else { continue }
            let current = Self.stateName(destination.state)
            for (name, gauge) in instrument.states { gauge.record(name == current ? 1 : 0) }
            instrument.stalled.record(destination.stalled ? 1 : 0)
            instrument.failures.record(destination.consecutiveFailures)
            // The observer's figures, as the console and `ctl status` show them.
            instrument.failureRatio.record(destination.failureRate.flatMap { $0.isFinite ? min(1, max(0, $0)) : nil } ?? 0)
            instrument.failingSince.record(destination.failingSince.map { Double($0.millisecondsSince1970) / 1000 } ?? 0)
            guard let success = destination.lastSuccessAt else { continue }
            let gauge = state.withLock { state in
                if let gauge = state.lastSuccess[destination.name] { return gauge }
                let gauge = Gauge(
                    label: "\(Self.prefix)_last_success_timestamp_seconds", dimensions: [("destination", destination.name)],
                    factory: factory)
                state.lastSuccess[destination.name] = gauge
                return gauge
            }
            gauge.record(Double(success.millisecondsSince1970) / 1000)
        }
    }

    /// Sets the queue's gauges from its counts and bounds.
    private func reportQueue(_ depth: QueueDepth, offline: Bool) {
        queueGauges.events.record(depth.events.addingReportingOverflow(depth.buffered).partialValue)
        queueGauges.bytes.record(depth.bytes)
        queueGauges.deadLetters.record(depth.deadLetters)
        queueGauges.offline.record(offline ? 1 : 0)
        if let bounds = queue.bounds {
            queueGauges.capacityEvents.record(bounds.maxEvents)
            queueGauges.capacityBytes.record(bounds.maxBytes)
            queueGauges.full.record(queue.isFull ? 1 : 0)
        }
    }

    /// Sets the oldest-pending-age gauges from the snapshot (the observer reads the ages
    /// from the store; a destination whose age it does not know reports 0).
    private func reportAges(_ snapshot: EngineSnapshot) {
        let now = Timestamp.now().millisecondsSince1970
        let times = Dictionary(
            snapshot.destinations.map { ($0.name, $0.oldestPendingAt) }, uniquingKeysWith: { first, _ in first })
        for (name, instrument) in instruments {
            let milliseconds = (times[name] ?? nil).map { max(0, now - $0.millisecondsSince1970) } ?? 0
            instrument.oldestAge.record(Double(milliseconds) / 1000)
        }
    }
}

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
///
/// Counters count from the reporter's start. Turn it on with one line, next to the engine:
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
    }

    private struct State {
        /// Each destination's counters as last reported.
        var counted: [String: DestinationDepth]
        /// Ids of the batch records already counted (those in the last snapshot's history).
        var seenBatches: Set<Int64> = []
    }

    /// A reporter for the destinations named `destinations`, recording through `factory`.
    ///
    /// - Parameters:
    public init(
        observer: TrackingObserver, queue: any EventQueue, destinations: [String],
        factory: any MetricsFactory = MetricsSystem.factory,
        logger: Logger = Logger(label: "beacon.metrics")
    ) {
        self.observer = observer
        self.queue = queue
        self.logger = logger
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
                latency: CoreMetrics.Timer(label: label("batch_duration_seconds"), dimensions: dimensions, factory: factory))
        }
        self.instruments = instruments
        let depth = queue.depth
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

    /// Reports one snapshot and the queue's counters now (what ``run()`` does for each).
    public func update(with snapshot: EngineSnapshot) async {
        let depth = queue.depth
        let (increments, newBatches) = state.withLock { state in
            var increments: [(Instruments, DestinationDepth)] = []
            for (name, instrument) in instruments {
                let now = depth.destinations[name] ?? DestinationDepth(pending: depth.events)
                let before = state.counted[name] ?? DestinationDepth()
                // A counter that went down (the destination was unregistered and started
                // again) is a new baseline, not a negative increment.
                let step = DestinationDepth(
                    pending: now.pending, delivered: max(0, now.delivered - before.delivered),
                    deadLettered: max(0, now.deadLettered - before.deadLettered), filtered: 0,
                    dropped: max(0, now.dropped - before.dropped))
                state.counted[name] = now
                increments.append((instrument, step))
            }
            let ids = Set(snapshot.recentBatches.map(\.id))
            let fresh = snapshot.recentBatches.filter { !state.seenBatches.contains($0.id) }
            state.seenBatches = ids
            return (increments, fresh)
        }
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

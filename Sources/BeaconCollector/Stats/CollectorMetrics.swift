import CoreMetrics
import Prometheus
import Synchronization

/// The collector's swift-metrics instruments, backed by its own Prometheus registry (not
/// the global `MetricsSystem`, so several collectors in one process keep separate counts).
final class CollectorMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// The factory over ``registry``; instruments made with it are served with the collector's.
    let factory: PrometheusMetricsFactory
    private let received: CoreMetrics.Counter
    private let stored: CoreMetrics.Counter
    private let duplicates: CoreMetrics.Counter
    private let faulted: CoreMetrics.Counter
    private let duration: CoreMetrics.Timer
    private let sharedEvents: CoreMetrics.Gauge
    private let sharedBatches: CoreMetrics.Gauge
    private let sharedUp: CoreMetrics.Gauge
    /// Counters with dimensions, created on first use.
    private let labelled = Mutex<[String: CoreMetrics.Counter]>([:])

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
        received = CoreMetrics.Counter(label: "beacon_collector_events_received_total", factory: factory)
        stored = CoreMetrics.Counter(label: "beacon_collector_events_stored_total", factory: factory)
        duplicates = CoreMetrics.Counter(label: "beacon_collector_events_duplicate_total", factory: factory)
        faulted = CoreMetrics.Counter(label: "beacon_collector_events_faulted_total", factory: factory)
        duration = CoreMetrics.Timer(label: "beacon_collector_request_duration_seconds", factory: factory)
        sharedEvents = CoreMetrics.Gauge(label: "beacon_collector_store_events", factory: factory)
        sharedBatches = CoreMetrics.Gauge(label: "beacon_collector_store_batches", factory: factory)
        sharedUp = CoreMetrics.Gauge(label: "beacon_collector_store_up", factory: factory)
    }

    /// Adds one request's outcome.
    func record(_ outcome: RequestOutcome, durationSeconds: Double) {
        if outcome.received > 0 { received.increment(by: outcome.received) }
        if outcome.stored > 0 { stored.increment(by: outcome.stored) }
        if outcome.duplicates > 0 { duplicates.increment(by: outcome.duplicates) }
        if outcome.faulted > 0 { faulted.increment(by: outcome.faulted) }
        for (code, count) in outcome.rejectedByCode {
            counter("beacon_collector_events_rejected_total", [("reason", code)]).increment(by: count)
        }
        let status = outcome.status == 0 ? "reset" : String(outcome.status)
        counter("beacon_collector_requests_total", [("route", Self.routeLabel(outcome.route)), ("status", status)])
            .increment()
        duration.recordNanoseconds(Int64(saturating: durationSeconds * 1e9))
    }

    /// Sets the gauges of the store's shared totals (`beacon_collector_store_events`,
    /// `beacon_collector_store_batches`, and `beacon_collector_store_up`, 0 while the
    /// database cannot be read). Gauges, not counters: they are the database's, and another
    /// collector's work moves them too.
    func recordShared(_ reading: SharedTotalsReader.Reading) {
        if let totals = reading.totals {
            sharedEvents.record(Double(totals.events))
            sharedBatches.record(Double(totals.batches))
        }
        sharedUp.record(reading.problem == nil ? 1 : 0)
    }

    /// All instruments in the Prometheus text exposition format.
    func prometheusText() -> String {
        registry.emitToString()
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        let key = label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        return labelled.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = counter
            return counter
        }
    }

    /// Keeps the route label's cardinality bounded: unknown paths share one label.
    private static func routeLabel(_ route: String) -> String {
        CollectorRoute.known.contains(route) ? route : "other"
    }
}

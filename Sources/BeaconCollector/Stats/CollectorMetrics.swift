import BeaconWire
import CoreMetrics
import Prometheus
import Synchronization

/// The collector's swift-metrics instruments, backed by its own Prometheus registry (not
/// the global `MetricsSystem`, so several collectors in one process keep separate counts).
///
/// Every instrument is named under one prefix (`beacon_collector`, or `beacon_agent_ingest`
/// for the agent's ingest) and described by a `# HELP` line: the registry has no help for
/// instruments made through swift-metrics, so ``prometheusText()`` adds them from
/// ``help`` and from what ``describe(_:)`` was given.
final class CollectorMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// The factory over ``registry``; instruments made with it are served with the collector's.
    let factory: PrometheusMetricsFactory
    /// The prefix of every instrument's name.
    let prefix: String
    private let received: CoreMetrics.Counter
    private let stored: CoreMetrics.Counter
    private let duplicates: CoreMetrics.Counter
    private let faulted: CoreMetrics.Counter
    private let duration: CoreMetrics.Timer
    /// The gauges of the database's shared totals; `nil` when not exported (the agent's
    /// ingest stores into the engine's queue, whose depth the engine's metrics report).
    private let shared: (events: CoreMetrics.Gauge, batches: CoreMetrics.Gauge, up: CoreMetrics.Gauge)?
    /// Counters with dimensions, created on first use.
    private let labelled = Mutex<[String: CoreMetrics.Counter]>([:])
    /// `# HELP` text by metric name, beside the collector's own.
    private let described = Mutex<[String: String]>([:])

    /// The build's version, as Prometheus' `*_build_info` convention has it: a gauge at 1
    /// whose label is the version (`beacon_build_info{version="0.6.0"} 1`), the same name
    /// from a collector and an agent.
    static let buildInfoName = "beacon_build_info"

    init(prefix: String = CollectorConfiguration.defaultMetricsPrefix, exportsStoreTotals: Bool = true) {
        self.prefix = prefix
        factory = PrometheusMetricsFactory(registry: registry)
        CoreMetrics.Gauge(label: Self.buildInfoName, dimensions: [("version", BeaconVersion.current)], factory: factory)
            .record(1)
        received = CoreMetrics.Counter(label: prefix + "_events_received_total", factory: factory)
        stored = CoreMetrics.Counter(label: prefix + "_events_stored_total", factory: factory)
        duplicates = CoreMetrics.Counter(label: prefix + "_events_duplicate_total", factory: factory)
        faulted = CoreMetrics.Counter(label: prefix + "_events_faulted_total", factory: factory)
        duration = CoreMetrics.Timer(label: prefix + "_request_duration_seconds", factory: factory)
        shared = exportsStoreTotals
            ? (CoreMetrics.Gauge(label: prefix + "_store_events", factory: factory),
               CoreMetrics.Gauge(label: prefix + "_store_batches", factory: factory),
               CoreMetrics.Gauge(label: prefix + "_store_up", factory: factory))
            : nil
    }

    /// The `# HELP` text of the collector's instruments, by name without the prefix.
    static let help: [String: String] = [
        "_events_received_total": "Events in well-formed ingest requests.",
        "_events_stored_total": "Events stored (each messageId once).",
        "_events_duplicate_total": "Events whose messageId was already stored (not stored again).",
        "_events_faulted_total": "Events answered with an injected fault (fault plan).",
        "_events_rejected_total": "Invalid events refused, by reason code.",
        "_request_duration_seconds": "Time to answer a request.",
        "_requests_total": "Requests answered, by route and HTTP status (reset: the connection was closed unanswered).",
        "_errors_total": "Requests answered with an error, by the error's code (as in the body's \"code\").",
        "_store_events": "Events in the whole database (shared by every collector over it).",
        "_store_batches": "Batches in the whole database (shared by every collector over it).",
        "_store_up": "1 while the database can be read, 0 while it cannot.",
    ]

    /// Adds `# HELP` texts for instruments recorded through ``factory`` by others (the
    /// agent's engine metrics), by full name.
    func describe(_ help: [String: String]) {
        described.withLock { $0.merge(help) { _, new in new } }
    }

    /// Adds one request's outcome.
    func record(_ outcome: RequestOutcome, durationSeconds: Double) {
        if outcome.received > 0 { received.increment(by: outcome.received) }
        if outcome.stored > 0 { stored.increment(by: outcome.stored) }
        if outcome.duplicates > 0 { duplicates.increment(by: outcome.duplicates) }
        if outcome.faulted > 0 { faulted.increment(by: outcome.faulted) }
        for (code, count) in outcome.rejectedByCode {
            counter(prefix + "_events_rejected_total", [("reason", code)]).increment(by: count)
        }
        if let code = outcome.errorCode {
            counter(prefix + "_errors_total", [("code", code)]).increment()
        }
        let status = outcome.status == 0 ? "reset" : String(outcome.status)
        counter(prefix + "_requests_total", [("route", Self.routeLabel(outcome.route)), ("status", status)])
            .increment()
        duration.recordNanoseconds(Int64(saturating: durationSeconds * 1e9))
    }

    /// Sets the gauges of the store's shared totals (`…_store_events`, `…_store_batches`,
    /// and `…_store_up`, 0 while the database cannot be read). Gauges, not counters: they
    /// are the database's, and another collector's work moves them too.
    func recordShared(_ reading: SharedTotalsReader.Reading) {
        guard let shared else { return }
        if let totals = reading.totals {
            shared.events.record(Double(totals.events))
            shared.batches.record(Double(totals.batches))
        }
        shared.up.record(reading.problem == nil ? 1 : 0)
    }

    /// All instruments in the Prometheus text exposition format, each with its `# HELP`.
    func prometheusText() -> String {
        var help = described.withLock { $0 }
        for (suffix, text) in Self.help { help[prefix + suffix] = text }
        help[Self.buildInfoName] = "Always 1; its version label is the build's (BeaconVersion, as beacon --version prints it)."
        return PrometheusHelp.insert(help, into: registry.emitToString())
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

import BeaconWire
import Logging
import Synchronization

/// The state every request handler shares: configuration, store, counters and the live
/// fault plan. Owned by a ``Collector``.
final class CollectorCore: Sendable {
    private struct FaultState {
        var plan: FaultPlan
        var generator: SeededGenerator
    }

    let limits: CollectorLimits
    let authenticator: WriteKeyAuthenticator
    let store: any CollectorStore
    let stats: StatsRecorder
    let metrics: CollectorMetrics
    /// The store's shared totals, read at most once a second.
    let sharedTotals: SharedTotalsReader
    let logger: Logger
    /// Holds back the lines every failed request would log (``LogThrottle``).
    let logThrottle = LogThrottle()
    /// Whether `/admin/faults` is served.
    let servesFaultAdmin: Bool
    private let faults: Mutex<FaultState>
    private let stopping = Mutex(false)

    init(configuration: CollectorConfiguration, store: any CollectorStore, logger: Logger) {
        limits = configuration.limits
        authenticator = WriteKeyAuthenticator(keys: configuration.writeKeys)
        self.store = store
        sharedTotals = SharedTotalsReader(store: store)
        stats = StatsRecorder(logCapacity: configuration.requestLogCapacity)
        self.logger = logger
        servesFaultAdmin = configuration.servesFaultAdmin
        metrics = CollectorMetrics(prefix: configuration.metricsPrefix, exportsStoreTotals: configuration.exportsStoreTotals)
        faults = Mutex(FaultState(plan: configuration.faultPlan, generator: SeededGenerator(seed: configuration.seed)))
    }

    /// The live fault plan.
    var faultPlan: FaultPlan {
        get { faults.withLock { $0.plan } }
        set { faults.withLock { $0.plan = newValue } }
    }

    /// Draws the fate of one ingest request carrying `eventCount` events.
    func drawFault(eventCount: Int) -> FaultDecision {
        faults.withLock { state in
            let draw = state.generator.nextUnit()
            return FaultDecision.decide(plan: state.plan, eventCount: eventCount, draw: draw)
        }
    }

    /// True once shutdown has begun: hanging requests let go.
    var isStopping: Bool {
        get { stopping.withLock { $0 } }
        set { stopping.withLock { $0 = newValue } }
    }
}

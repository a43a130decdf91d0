import CoreMetrics
import Logging

extension BeaconEngine {
    /// A reporter of this engine's metrics through swift-metrics (see ``EngineMetrics``):
    /// run it beside the engine, e.g. in the same `ServiceGroup`.
    ///
    /// ```swift
    /// let group = ServiceGroup(services: [engine, engine.metricsReporter()], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    ///
    /// - Parameter factory: where the instruments go; default the global
    ///   `MetricsSystem.factory` (what `MetricsSystem.bootstrap` installed).
    public func metricsReporter(
        factory: any MetricsFactory = MetricsSystem.factory, logger: Logger = Logger(label: "beacon.metrics")
    ) -> EngineMetrics {
        EngineMetrics(
            observer: observer, queue: queue, destinations: destinations.map(\.name), baseline: startDepth, factory: factory,
            logger: logger)
    }
}

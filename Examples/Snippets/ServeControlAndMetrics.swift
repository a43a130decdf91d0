import Beacon
import Logging
import ServiceLifecycle

/// An embedded engine that operators can reach like an agent: it holds the store's lock,
/// serves STORE.control (`beacon ctl`, `beacon dead`, `beacon monitor`) and reports its
/// metrics through swift-metrics.
func runOperatedEngine(storePath: String, endpoint: String, logger: Logger) async throws {
    let lock = try StoreLock.acquire(forStore: storePath, role: "my-service")
    defer { withExtendedLifetime(lock) {} }
    let queue = try SQLiteEventQueue(path: storePath)
    let sender = try HTTPSender(endpoint: endpoint, writeKey: "wk_1")
    let engine = BeaconEngine(queue: queue, destination: Destination(sender: sender))
    let control = try await engine.serveControl(lock: lock)
    let group = ServiceGroup(
        services: [engine, control, engine.metricsReporter()],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    try await group.run()
}

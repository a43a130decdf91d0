import Beacon
import Logging
import ServiceLifecycle

/// An engine over a store on disk, sending to one collector under the default policy.
func makeEngine() throws -> BeaconEngine<ContinuousClock> {
    let queue = try SQLiteEventQueue(path: "/var/lib/myservice/beacon.sqlite")
    let sender = HTTPSender(configuration: try HTTPSenderConfiguration(
        endpoint: "http://127.0.0.1:8088", writeKey: "my-write-key"))
    return BeaconEngine(
        queue: queue, destination: Destination(sender: sender),
        settings: EngineSettings(policy: .any([.count(100), .interval(.seconds(5))])))
}

/// Runs the engine until SIGTERM or SIGINT; on the way out it drains for at most 5 s.
func runEngine(_ engine: BeaconEngine<ContinuousClock>, logger: Logger) async throws {
    let group = ServiceGroup(services: [engine], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    try await group.run()
}

/// Fire and forget, then an event whose commit to disk is awaited.
func trackTwoEvents(_ engine: BeaconEngine<ContinuousClock>) async throws {
    try engine.tracker.track("Signed Up", properties: ["plan": "pro", "seats": 3], userId: "u-42")
    try await engine.tracker.track("Order Completed", properties: ["total": 99.5]).committed()
}

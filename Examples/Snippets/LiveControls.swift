import Beacon
import Logging

/// The dashboard's actions, from code, on a running engine.
func rideOutAnIncident(_ engine: BeaconEngine<ContinuousClock>, logger: Logger) async throws {
    engine.setOffline(true)  // events keep queueing; nothing is sent
    engine.setPolicy(try FlushPolicy(parsing: "count 50 or 10s"))
    engine.setBatchSize(200)
    engine.setOffline(false)  // drains the backlog
    await engine.flush()

    try await engine.pause(destination: "ads")  // its events stay queued; the others go on
    try await engine.resume(destination: "ads")
    let retried = try await engine.retryNow(destination: nil)  // ends every backoff at once
    logger.info("backoff ended", metadata: ["destinations": "\(retried)"])
}

import Beacon
import Logging

/// Logs the queue's depth, the deliveries and the p99 flush latency of every snapshot,
/// and each destination that is stalled.
func watchEngine(_ engine: BeaconEngine<ContinuousClock>, logger: Logger) async {
    for await snapshot in await engine.observer.snapshots() {
        let p99 = snapshot.latency.p99.map { "\($0)" } ?? "none yet"
        logger.info("queue", metadata: [
            "depth": "\(snapshot.depth)",
            "delivered": "\(snapshot.totals.delivered)",
            "p99": "\(p99)",
        ])
        for destination in snapshot.destinations where destination.stalled {
            logger.warning("stalled", metadata: ["destination": "\(destination.name)", "pending": "\(destination.depth)"])
        }
    }
}

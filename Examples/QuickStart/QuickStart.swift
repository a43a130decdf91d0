import Beacon
import Logging
import ServiceLifecycle

/// Tracks two events, delivers them and stops: `swift run QuickStart http://127.0.0.1:8080 events.sqlite`
@main
struct QuickStart {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        let endpoint = arguments.first ?? "http://127.0.0.1:8080"
        let path = arguments.dropFirst().first ?? "events.sqlite"
        let logger = Logger(label: "quickstart")

        // The queue is a SQLite file: what `track` accepted survives a crash and a restart.
        let queue = try SQLiteEventQueue(path: path)
        let sender = try HTTPSender(endpoint: endpoint, writeKey: "my-write-key")
        let engine = BeaconEngine(
            queue: queue, destination: Destination(sender: sender),
            settings: EngineSettings(policy: .any([.count(100), .interval(.seconds(5))])), logger: logger)
        // A swift-service-lifecycle service: on SIGTERM or SIGINT it sends what is queued (5 s at most).
        let services = ServiceGroup(services: [engine], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }

            // Fire and forget: checked, given a messageId (UUIDv7) and a timestamp, committed within ms.
            try engine.tracker.track("Signed Up", properties: ["plan": "pro", "seats": 3], userId: "u-42")
            // Or wait until the event is on disk.
            try await engine.tracker.track("Order Completed", properties: ["total": 99.5], userId: "u-42").committed()

            // What SIGTERM does: a final drain, then run() returns. A service would run until then.
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
        // Undelivered events (the collector was down) stay in the file for the next start.
        print("\(queue.depth.events) events left in \(path)")
    }
}

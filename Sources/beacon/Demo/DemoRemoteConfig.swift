import ArgumentParser
import Beacon
import Foundation
import Logging

/// `beacon demo --config FILE [--config-interval DURATION]`: the demo's collector serves
/// FILE at `/v1/config`, and a ``RemoteConfigSyncer`` polls it for the engine, storing the
/// feed in the demo's own store (the sync tables are in the queue's schema) through the
/// queue's one writer, and reporting to the engine's observer, so the header shows the
/// version and last sync.
///
/// Without `--config` the demo serves no config and runs no syncer: the `--policy` and
/// `--batch-size` flags and the dashboard keys are the only source of settings.
struct DemoRemoteConfig: Sendable {
    /// The config file the collector serves.
    var path: String
    /// Time between polls.
    var interval: Duration

    /// The default time between polls.
    static let defaultInterval = Duration.seconds(5)
    /// The range `--config-interval` accepts.
    static let intervals = Duration.milliseconds(100)...Duration.seconds(3600)

    /// Reads `--config-interval`: a duration with its unit within ``intervals``.
    static func interval(parsing text: String) throws(ValidationError) -> Duration {
        guard let interval = FlushPolicy.parseDuration(text.trimmingCharacters(in: .whitespaces)), intervals.contains(interval) else {
            throw ValidationError("--config-interval must be a duration from 100ms to 1h with its unit, such as 500ms, 5s or 2m; not '\(text)'")
        }
        return interval
    }

    /// A syncer for `engine` polling the collector on `port`, over the store at `store`.
    func makeSyncer(
        engine: BeaconEngine<ContinuousClock>, store: String, port: Int, logger: Logger
    ) throws(CLIError) -> RemoteConfigSyncer<ContinuousClock> {
        let importer: SyncImporter
        if let queue = engine.queue as? SQLiteEventQueue {
            importer = SyncImporter(queue: queue, logger: logger)  // through the engine's one writer
        } else {
            do {
                importer = try SyncImporter(path: store)
            } catch {
                throw .runtime("cannot open the demo store \(store) for remote configuration: \(error)")
            }
        }
        guard let url = URL(string: "http://127.0.0.1:\(port)/v1/config") else {
            throw .runtime("cannot form the config feed's address for port \(port)")
        }
        return RemoteConfigSyncer(
            importer: importer, settings: engine.settings, filter: engine.filter,
            fetch: SyncHTTPFetcher(url: url, timeout: .seconds(5)).fetchFunction, interval: interval,
            clock: ContinuousClock(), observer: engine.observer, logger: logger)
    }
}

import Beacon
import Foundation
import ServiceLifecycle

/// Polls the collector's /v1/config feed every minute and applies it to `engine` live.
/// Run the syncer in the engine's ServiceGroup.
func makeConfigSyncer(
    engine: BeaconEngine<ContinuousClock>, storePath: String, feed: URL
) throws -> RemoteConfigSyncer<ContinuousClock> {
    RemoteConfigSyncer(
        importer: try SyncImporter(path: storePath), settings: engine.settings, filter: engine.filter,
        fetch: SyncHTTPFetcher(url: feed).fetchFunction, interval: .seconds(60), clock: ContinuousClock(),
        observer: engine.observer)
}

/// Applies one generic one-way sync feed (upserts, deletions, version token) in one
/// transaction, and returns the token to send as `?since=` next time.
func importFeed(_ bytes: [UInt8], storePath: String) async throws -> String {
    let importer = try SyncImporter(path: storePath)
    let result = try await importer.apply(bytes)
    return result.versionToken
}

import BeaconWire
import Foundation

extension SyncImporter {
    /// Whether `bytes` are a config feed answer (`GET /v1/config`: a `settings` object)
    /// rather than a generic sync feed (collections are arrays); `false` when they are not
    /// JSON at all, so the generic parser reports that.
    public static func isConfigFeed(_ bytes: [UInt8]) -> Bool {
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            return false  // not a JSON object: the generic parser names the problem
        }
        if case .object? = object["settings"] { return true }
        return false
    }

    /// Checks a config feed answer (see ``RemoteConfig`` for the settings) against the
    /// settings already stored, and stores it as the `remote_config` collection with its
    /// version token in one transaction: what a ``RemoteConfigSyncer`` stores, without an
    /// engine to apply it to. An engine started later over this store puts it in force.
    /// A refused answer changes nothing.
    @discardableResult
    public func applyConfigFeed(_ bytes: [UInt8]) async throws(SyncError) -> SyncResult {
        let feed = try RemoteConfigFeed(json: bytes)
        let (records, _) = try await snapshot(of: RemoteConfigFeed.collection)
        _ = try RemoteConfig(settings: feed.merged(over: RemoteConfigFeed.checkedSettings(from: records).valid))
        return try await apply(feed: try feed.syncFeed)
    }
}

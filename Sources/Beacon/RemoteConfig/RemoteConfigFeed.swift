import BeaconWire
import Foundation

/// A response of the config feed (`GET /v1/config?since=TOKEN`), checked:
///
/// ```json
/// {"settings": {"batchSize": 50, "blocklist": ["Debug Event"]},
///  "deleted": ["sampling"],
///  "version_token": "5f2c..."}
/// ```
/// `settings` holds the keys that changed since `since` (all of them on a first poll),
/// `deleted` the keys that no longer have a value. An optional `warning` string says what
/// is wrong on the server's side while it still answers (the collector's config file is
/// broken and it serves the last good version); it changes nothing here but is shown. It is stored through the generic
/// ``SyncImporter`` as the collection `remote_config`, one record per key
/// (`{"id": "batchSize", "value": 50}`), so it commits with its token in one transaction.
struct RemoteConfigFeed: Sendable {
    /// The collection the settings are stored in.
    static let collection = "remote_config"

    var settings: [String: JSONValue]
    var deleted: [String]
    var versionToken: String
    var warning: String?

    init(json bytes: [UInt8]) throws(SyncError) {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw .invalidJSON(reason: "\(error)")
        }
        guard case .object(let object) = value else {
            throw .wrongType(path: "the config feed", expected: "a JSON object", found: value.typeName)
        }
        switch object["version_token"] {
        case .string(let token)? where !token.isEmpty: versionToken = token
        case nil, .null?, .string?: throw .missingVersionToken
        case let other?: throw .wrongType(path: "version_token", expected: "a string", found: other.typeName)
        }
        switch object["settings"] {
        case nil, .null?: settings = [:]
        case .object(let values)?: settings = values
        case let other?: throw .wrongType(path: "settings", expected: "an object of setting → value", found: other.typeName)
        }
        switch object["warning"] {
        case nil, .null?: warning = nil
        case .string(let text)?: warning = text.isEmpty ? nil : text
        case let other?: throw .wrongType(path: "warning", expected: "a string", found: other.typeName)
        }
        deleted = []
        switch object["deleted"] {
        case nil, .null?: break
        case .array(let keys)?:
            for (index, key) in keys.enumerated() {
                guard case .string(let name) = key else {
                    throw .wrongType(path: "deleted[\(index)]", expected: "a setting name (string)", found: key.typeName)
                }
                deleted.append(name)
            }
        case let other?: throw .wrongType(path: "deleted", expected: "an array of setting names", found: other.typeName)
        }
    }

    /// The settings after this response, given the stored ones.
    func merged(over stored: [String: JSONValue]) -> [String: JSONValue] {
        var result = stored
        for key in deleted { result[key] = nil }
        result.merge(settings) { _, new in new }
        return result
    }

    /// The same change as a generic sync feed.
    var syncFeed: SyncFeed {
        get throws(SyncError) {
            let items = settings.keys.sorted().map { key -> JSONValue in ["id": .string(key), "value": settings[key] ?? .null] }
            return try SyncFeed(.object([
                Self.collection: .array(items),
                "deleted": .object([Self.collection: .array(deleted.map { .string($0) })]),
                "version_token": .string(versionToken),
            ]))
        }
    }

    /// Reads stored settings back from their records.
    static func settings(from records: [SyncRecord]) -> [String: JSONValue] {
        var settings: [String: JSONValue] = [:]
        for record in records { settings[record.id] = record.body["value"] ?? .null }
        return settings
    }

    /// The stored settings that pass today's checks, and the problems of those that do
    /// not (a store written by an older version, or by hand): a bad stored value is
    /// dropped, never put in force, and never blocks a good feed.
    static func checkedSettings(from records: [SyncRecord]) -> (valid: [String: JSONValue], problems: [RemoteConfigProblem]) {
        RemoteConfig.checkedSettings(settings(from: records))
    }
}

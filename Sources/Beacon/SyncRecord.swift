import BeaconWire

/// One stored record of a synced collection.
public struct SyncRecord: Sendable, Hashable {
    /// The collection (`events`, `locations`).
    public var collection: String
    /// The server's id, as text (`1` for the JSON number 1).
    public var id: String
    /// The item as the server sent it, except that nested records are replaced by their id.
    public var body: JSONValue
    /// Nested records this one points to, by field (`location` → `locations/2`).
    public var links: [String: SyncLink]

    /// Creates a record.
    public init(collection: String, id: String, body: JSONValue, links: [String: SyncLink] = [:]) {
        self.collection = collection
        self.id = id
        self.body = body
        self.links = links
    }
}

/// A relationship from a record's field to a record of another collection.
public struct SyncLink: Sendable, Hashable, CustomStringConvertible {
    /// The target's collection.
    public var collection: String
    /// The target's id.
    public var id: String

    /// Creates a link.
    public init(collection: String, id: String) {
        self.collection = collection
        self.id = id
    }

    public var description: String { "\(collection)/\(id)" }
}

/// What one applied response changed.
public struct SyncResult: Sendable, Hashable, CustomStringConvertible {
    /// Records written (inserted or replaced) per collection, nested records included.
    public var upserted: [String: Int]
    /// Records removed per collection (ids that were not stored do not count).
    public var deleted: [String: Int]
    /// The token now stored.
    public var versionToken: String

    /// Creates a result.
    public init(upserted: [String: Int] = [:], deleted: [String: Int] = [:], versionToken: String) {
        self.upserted = upserted
        self.deleted = deleted
        self.versionToken = versionToken
    }

    /// One line: `upserted events=1 locations=2; deleted none; version_token 1234567890`.
    public var description: String {
        func list(_ counts: [String: Int]) -> String {
            let nonZero = counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            return nonZero.isEmpty ? "none" : nonZero.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        return "upserted \(list(upserted)); deleted \(list(deleted)); version_token \(versionToken)"
    }
}

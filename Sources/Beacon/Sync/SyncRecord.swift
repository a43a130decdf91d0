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

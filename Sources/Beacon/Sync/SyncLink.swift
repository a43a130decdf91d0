import BeaconWire

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

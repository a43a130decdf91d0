import BeaconWire

/// A store operation that failed.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    public var kind: StorageProblem.Kind
    public var message: String
    /// For ``StorageProblem/Kind/damaged``: where the bad value is.
    public var damage: Damage?

    /// A value read back from the store that is not what Beacon wrote: the wrong type
    /// (`'abc'` in an integer column) or out of range (a counter past 2^62).
    public struct Damage: Sendable, Hashable {
        public var table: String
        public var column: String
        public init(table: String, column: String) {
            self.table = table
            self.column = column
        }
    }

    public init(kind: StorageProblem.Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// A damaged store: `table.column` holds `found` where Beacon expects `expected`.
    public static func damaged(path: String, table: String, column: String, found: String, expected: String) -> StorageError {
        var error = StorageError(
            kind: .damaged,
            message: "\(path) is damaged: \(table).\(column) holds \(found), not \(expected); "
                + "move the file aside (or restore a backup) and start a new store")
        error.damage = Damage(table: table, column: column)
        return error
    }

    public var description: String { "storage \(kind.rawValue): \(message)" }
}

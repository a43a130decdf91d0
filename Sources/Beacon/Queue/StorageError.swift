import BeaconWire

/// A store operation that failed.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    public var kind: StorageProblem.Kind
    public var message: String
    public init(kind: StorageProblem.Kind, message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { "storage \(kind.rawValue): \(message)" }
}

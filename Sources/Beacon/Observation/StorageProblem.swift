import BeaconWire

/// A problem with the store that the engine is riding out.
public struct StorageProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem.
    public enum Kind: String, Sendable, Hashable {
        case diskFull = "disk full"
        case readOnly = "read-only"
        case locked
        case fileRemoved = "file removed"
        case ioError = "I/O error"
        /// A row holds a value of the wrong type or out of range (see
        /// ``StorageError/damage``): the store was edited or corrupted outside Beacon.
        case damaged
        /// The store was written by a newer Beacon (its schema has migrations this build
        /// does not know); nothing is migrated or written.
        case newerSchema = "newer schema"
        case other
    }

    public var kind: Kind
    /// The underlying error's message.
    public var message: String
    /// When it started (wall clock).
    public var since: Timestamp
    /// Events held in memory until the store works again.
    public var bufferedEvents: Int

    public init(kind: Kind, message: String, since: Timestamp, bufferedEvents: Int) {
        self.kind = kind
        self.message = message
        self.since = since
        self.bufferedEvents = bufferedEvents
    }

    public var description: String { "\(kind.rawValue): \(message) (\(bufferedEvents) events held in memory)" }
}

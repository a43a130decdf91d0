import BeaconWire

/// A place in the order of appends; awaited to know an event is committed.
public struct CommitTicket: Sendable, Hashable, Comparable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: CommitTicket, rhs: CommitTicket) -> Bool { lhs.rawValue < rhs.rawValue }
}

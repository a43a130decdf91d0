import BeaconWire

/// How full the queue is.
public struct QueueDepth: Sendable, Hashable {
    /// Events committed and not yet delivered or dead-lettered.
    public var events: Int
    /// Bytes of their JSON.
    public var bytes: Int
    /// Events accepted and held in memory, not yet committed.
    public var buffered: Int
    /// Lifetime totals as the store keeps them.
    public var totals: QueueTotals
    /// Each registered destination's progress, by name.
    public var destinations: [String: DestinationDepth]
    /// Dead letters in the store now (not yet retried or purged).
    public var deadLetters: Int

    public init(
        events: Int = 0, bytes: Int = 0, buffered: Int = 0, totals: QueueTotals = QueueTotals(),
        destinations: [String: DestinationDepth] = [:], deadLetters: Int = 0
    ) {
        self.deadLetters = deadLetters
        self.events = events
        self.bytes = bytes
        self.buffered = buffered
        self.totals = totals
        self.destinations = destinations
    }

    /// Events `destination` is not done with (all committed events if it is not registered yet).
    public func pending(for destination: String) -> Int {
        destinations[destination]?.pending ?? events
    }
}

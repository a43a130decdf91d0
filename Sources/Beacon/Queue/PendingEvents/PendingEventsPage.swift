import BeaconWire

/// The head and the tail of the queue, as a ``PendingEventQuery`` selects them.
public struct PendingEventsPage: Sendable, Hashable {
    /// Events pending for the query's destination (or for any), whatever `containing`
    /// says: the queue's depth for it.
    public var pending: Int
    /// The oldest events that match, oldest first.
    public var head: [PendingEventRecord]
    /// The newest events that match and are not in ``head``, oldest first.
    public var tail: [PendingEventRecord]
    /// How many events match, when the read counted them (always without `containing`;
    /// with it, only when every match is in ``head`` and ``tail``): `nil` says "more than
    /// shown", unknown without reading every pending event.
    public var matching: Int?
    /// The store's destinations, by name: a query naming another finds nothing.
    public var destinations: [String]

    public init(pending: Int, head: [PendingEventRecord], tail: [PendingEventRecord], matching: Int?, destinations: [String] = []) {
        self.pending = pending
        self.head = head
        self.tail = tail
        self.matching = matching
        self.destinations = destinations
    }

    /// Every listed event, oldest first.
    public var events: [PendingEventRecord] { head + tail }

    /// Whether events lie between the head and the tail that are not listed.
    public var hasGap: Bool {
        guard let matching else { return true }
        return matching > head.count + tail.count
    }
}

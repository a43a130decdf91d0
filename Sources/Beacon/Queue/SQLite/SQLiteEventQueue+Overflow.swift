import GRDB

extension SQLiteEventQueue.Snapshot {
    /// Drops the oldest queued events that no destination is sending (outside `leases`)
    /// until the queue is within `limits`, and charges each drop to the destinations that
    /// had the event pending. Returns how many went. The events join what left the queue;
    /// their rows go with their segment.
    mutating func dropOldest(leases: [ClosedRange<Int64>], limits: (events: Int, bytes: Int), _ db: Database) throws -> Int {
        var candidates = log.queued(through: last)
        for lease in leases { candidates = candidates.subtracting(SequenceRanges([lease])) }
        let depth = log.depth(through: last)
        let bytes = stored.bytes
        let victims = try segments.sizes(of: candidates, db) { count, size in
            depth - count <= limits.events && bytes - size <= limits.bytes
        }
        guard !victims.isEmpty else { return 0 }
        let lost = log.drop(SequenceRanges(sequences: victims.map(\.sequence)), through: last)
        for (name, count) in lost { destinations[name]?.dropped += count }
        stored.bytes -= victims.reduce(0) { $0 + $1.bytes }
        stored.dropped += victims.count
        return victims.count
    }
}

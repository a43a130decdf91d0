/// The payload sizes of the events a destination's peeks handed out and it has not
/// settled, so that a settle counts the bytes that leave the queue without reading them
/// again.
///
/// Kept as (sequence, size) pairs sorted by sequence: a peek appends its events in
/// order, a settle sums a few ranges by binary search and drops what it settled from the
/// front. No hashing per event, unlike a dictionary. A size it does not hold is simply
/// unknown: ``bytes(of:)`` answers `nil` and the settle reads the sizes from the store.
struct LeasedSizes: Sendable, Hashable {
    private var sequences: [Int64] = []
    private var sizes: [Int] = []

    /// Events whose sizes are held.
    var count: Int { sequences.count }

    /// Records the sizes of `events`, read by one peek (in increasing sequence order).
    /// Sizes held for numbers at or past the first of them are forgotten first: a peek
    /// that reads again from an earlier point replaces what it overlaps.
    mutating func record(_ events: [QueuedEvent]) {
        guard let first = events.first?.sequence else { return }
        let from = index(atOrAfter: first)
        sequences.removeSubrange(from...)
        sizes.removeSubrange(from...)
        sequences.reserveCapacity(sequences.count + events.count)
        sizes.reserveCapacity(sizes.count + events.count)
        var last = sequences.last ?? .min
        for event in events where event.sequence > last {
            sequences.append(event.sequence)
            sizes.append(event.payloadCount)
            last = event.sequence
        }
    }

    /// The total size of the events in `ranges`, or `nil` when any of them is not held.
    func bytes(of ranges: SequenceRanges) -> Int? {
        var total = 0
        for range in ranges.ranges {
            let start = index(atOrAfter: range.lowerBound)
            // Every number of the range held: the pairs from `start` run through it unbroken.
            let (span, overflow) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
            guard !overflow, span < Int64(sequences.count - start) else { return nil }
            let end = start + Int(span)  // checked: fewer than the pairs left
            guard sequences[start] == range.lowerBound, sequences[end] == range.upperBound else { return nil }
            for index in start...end { total += sizes[index] }
        }
        return total
    }

    /// Forgets the sizes of every number up to `sequence`.
    mutating func removeThrough(_ sequence: Int64) {
        let end = index(atOrAfter: sequence == .max ? sequence : sequence + 1)
        sequences.removeSubrange(..<end)
        sizes.removeSubrange(..<end)
    }

    /// The first index whose sequence is `sequence` or greater.
    private func index(atOrAfter sequence: Int64) -> Int {
        sequences.partitioningIndex { $0 >= sequence }
    }
}

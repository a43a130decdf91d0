/// A set of sequence numbers kept as sorted, disjoint, non-adjacent closed ranges: what a
/// destination settled ahead of its cursor, what left the queue ahead of its floor. The
/// sets stay small (a few ranges) because cursors and the floor absorb their prefixes.
struct SequenceRanges: Sendable, Hashable {
    /// Sorted by lower bound; no two overlap or touch.
    private(set) var ranges: [ClosedRange<Int64>]

    init() { ranges = [] }

    /// From ranges in any order, overlapping or not.
    init<S: Sequence>(_ ranges: S) where S.Element == ClosedRange<Int64> {
        self.ranges = []
        for range in ranges { insert(range) }
    }

    /// From single sequence numbers, in any order.
    init(sequences: [Int64]) {
        ranges = []
        for range in Self.runs(of: sequences) { insert(range) }
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// How many sequence numbers the set holds.
    var count: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound + 1) } }

    func contains(_ sequence: Int64) -> Bool {
        let index = ranges.partitioningIndex { $0.upperBound >= sequence }
        return index < ranges.count && ranges[index].contains(sequence)
    }

    mutating func insert(_ range: ClosedRange<Int64>) {
        var lower = range.lowerBound
        var upper = range.upperBound
        var kept: [ClosedRange<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        var placed = false
        for existing in ranges {
            if existing.upperBound < lower - 1 {
                kept.append(existing)
            } else if existing.lowerBound > upper + 1 {
                if !placed {
                    kept.append(lower...upper)
                    placed = true
                }
                kept.append(existing)
            } else {
                lower = min(lower, existing.lowerBound)
                upper = max(upper, existing.upperBound)
            }
        }
        if !placed { kept.append(lower...upper) }
        ranges = kept
    }

    mutating func formUnion(_ other: SequenceRanges) {
        for range in other.ranges { insert(range) }
    }

    func union(_ other: SequenceRanges) -> SequenceRanges {
        var result = self
        result.formUnion(other)
        return result
    }

    func intersection(_ other: SequenceRanges) -> SequenceRanges {
        var result: [ClosedRange<Int64>] = []
        var (i, j) = (0, 0)
        while i < ranges.count, j < other.ranges.count {
            let (a, b) = (ranges[i], other.ranges[j])
            let lower = max(a.lowerBound, b.lowerBound)
            let upper = min(a.upperBound, b.upperBound)
            if lower <= upper { result.append(lower...upper) }
            if a.upperBound < b.upperBound { i += 1 } else { j += 1 }
        }
        var set = SequenceRanges()
        set.ranges = result
        return set
    }

    func subtracting(_ other: SequenceRanges) -> SequenceRanges {
        var result: [ClosedRange<Int64>] = []
        var j = 0
        for range in ranges {
            var lower = range.lowerBound
            while j < other.ranges.count, other.ranges[j].upperBound < lower { j += 1 }
            var k = j
            while lower <= range.upperBound {
                guard k < other.ranges.count, other.ranges[k].lowerBound <= range.upperBound else {
                    result.append(lower...range.upperBound)
                    break
                }
                let cut = other.ranges[k]
                if cut.lowerBound > lower { result.append(lower...(cut.lowerBound - 1)) }
                if cut.upperBound >= range.upperBound { break }
                lower = max(lower, cut.upperBound + 1)
                k += 1
            }
        }
        var set = SequenceRanges()
        set.ranges = result
        return set
    }

    /// Keeps only the numbers within `bounds` (none if it is empty: `lower > upper`).
    func clamped(_ lower: Int64, _ upper: Int64) -> SequenceRanges {
        guard lower <= upper else { return SequenceRanges() }
        return intersection(SequenceRanges([lower...upper]))
    }

    /// Drops every number at or below `floor`.
    mutating func removeThrough(_ floor: Int64) {
        ranges = ranges.compactMap { range in
            if range.upperBound <= floor { return nil }
            return max(range.lowerBound, floor + 1)...range.upperBound
        }
    }

    /// The end of the run of numbers that starts right after `position` (`position` itself
    /// when `position + 1` is not in the set).
    func endOfRun(after position: Int64) -> Int64 {
        var end = position
        for range in ranges where range.lowerBound <= end + 1 {
            if range.upperBound > end { end = range.upperBound }
        }
        return end
    }

    /// Contiguous runs of `sequences` (any order, duplicates allowed), ascending.
    static func runs(of sequences: [Int64]) -> [ClosedRange<Int64>] {
        var result: [ClosedRange<Int64>] = []
        for sequence in sequences.sorted() {
            if let last = result.last, last.upperBound + 1 == sequence {
                result[result.count - 1] = last.lowerBound...sequence
            } else if result.last?.contains(sequence) != true {
                result.append(sequence...sequence)
            }
        }
        return result
    }
}

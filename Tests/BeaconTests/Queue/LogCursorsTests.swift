@testable import Beacon
import BeaconWire
import Testing

/// The log's arithmetic on its own: range sets against plain sets of numbers, and the
/// cursors through the cases the queue meets.
@Suite("Log cursors")
struct LogCursorsTests {
    /// Random small sets: every operation agrees with `Set<Int64>`.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func rangeSetsAgreeWithPlainSets(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let a = (0..<Int.random(in: 0...12, using: &random)).map { _ in Int64.random(in: 0...40, using: &random) }
            let b = (0..<Int.random(in: 0...12, using: &random)).map { _ in Int64.random(in: 0...40, using: &random) }
            let (ranges, others) = (SequenceRanges(sequences: a), SequenceRanges(sequences: b))
            let (set, otherSet) = (Set(a), Set(b))
            #expect(Self.members(ranges) == set)
            #expect(ranges.count == Int64(set.count))
            #expect(Self.members(ranges.union(others)) == set.union(otherSet), "\(a) ∪ \(b)")
            #expect(Self.members(ranges.intersection(others)) == set.intersection(otherSet), "\(a) ∩ \(b)")
            #expect(Self.members(ranges.subtracting(others)) == set.subtracting(otherSet), "\(a) − \(b)")
            let floor = Int64.random(in: -1...41, using: &random)
            var cut = ranges
            cut.removeThrough(floor)
            #expect(Self.members(cut) == set.filter { $0 > floor })
            var end = floor
            while set.contains(end + 1) { end += 1 }
            #expect(ranges.endOfRun(after: floor) == end, "run of \(a) after \(floor)")
            for probe in Int64(-1)...41 { #expect(ranges.contains(probe) == set.contains(probe)) }
            // Sorted, disjoint and never touching: the form every operation keeps.
            for (left, right) in zip(ranges.ranges, ranges.ranges.dropFirst()) { #expect(left.upperBound + 1 < right.lowerBound) }
        }
    }

    /// The binary search the log's sets, the leased sizes and the observer's latency window
    /// share, against a linear scan: empty, all before, all after, and slices that do not
    /// start at zero.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func partitioningIndexFindsTheFirstOfTheSecondPart(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let values = (0..<Int.random(in: 0...20, using: &random)).map { _ in Int.random(in: 0...10, using: &random) }.sorted()
            let drop = Int.random(in: 0...values.count, using: &random)
            let slice = values[drop...]
            let pivot = Int.random(in: -1...11, using: &random)
            let expected = slice.firstIndex { $0 >= pivot } ?? slice.endIndex
            #expect(slice.partitioningIndex { $0 >= pivot } == expected, "\(Array(slice)) at \(pivot)")
        }
    }

    static func members(_ ranges: SequenceRanges) -> Set<Int64> {
        Set(ranges.ranges.flatMap { Array($0) })
    }

    @Test func anEventLeavesWhenTheLastDestinationIsDoneAndTheFloorFollows() {
        var log = LogCursors(floor: 0)
        log.register("a")
        log.register("b")
        // a settles 1...10 in order: nothing leaves, b still lacks them.
        var settled = log.markDone(Array(1...10), by: "a", through: 20)
        #expect(settled.newly.count == 10 && settled.left.isEmpty)
        #expect(log.positions["a"]?.cursor == 10 && log.floor == 0)
        // b settles 6...8 out of order: they leave (a is done with them), the floor stays.
        settled = log.markDone([6, 7, 8], by: "b", through: 20)
        #expect(settled.left.ranges == [6...8])
        #expect(log.depth(through: 20) == 17 && log.floor == 0 && log.positions["b"]?.cursor == 0)
        // b settles 1...5: the floor and b's cursor run on through what left, to 8.
        settled = log.markDone([1, 2, 3, 4, 5, 6], by: "b", through: 20)
        #expect(settled.newly.count == 5, "6 was done already")
        #expect(log.floor == 8 && log.positions["b"]?.cursor == 8 && log.gone.isEmpty)
        #expect(log.pending(for: "a", through: 20).ranges == [11...20])
        #expect(log.pending(for: "b", through: 20).ranges == [9...20])
    }

    @Test func aLateDestinationStartsWithEverythingQueuedAndUnregisteringReleasesWhatOnlyItLacked() {
        var log = LogCursors(floor: 0)
        log.register("a")
        _ = log.markDone([3, 4], by: "a", through: 10)
        #expect(log.depth(through: 10) == 8, "3 and 4 left: a was the only destination")
        log.register("b")
        #expect(log.pending(for: "b", through: 10).count == 8, "b starts with the 8 queued")
        _ = log.markDone([1, 2, 5], by: "a", through: 10)
        let left = log.unregister("b", through: 10)
        #expect(left.ranges == [1...2, 5...5], "what a was done with leaves once b is gone")
        #expect(log.floor == 5 && log.depth(through: 10) == 5)
    }

    @Test func aDropChargesOnlyTheDestinationsThatLackedTheEvents() {
        var log = LogCursors(floor: 0)
        log.register("a")
        log.register("b")
        _ = log.markDone([1, 2, 3], by: "a", through: 10)
        let lost = log.drop(SequenceRanges([1...4]), through: 10)
        #expect(lost == ["a": 1, "b": 4])
        #expect(log.floor == 4 && log.depth(through: 10) == 6)
    }

    @Test func aRetriedCopyIsPendingForItsDestinationOnly() {
        var log = LogCursors(floor: 5)
        log.register("a")
        log.register("b")
        log.queueCopy(6, for: "b")
        #expect(log.pending(for: "a", through: 6).isEmpty)
        #expect(log.pending(for: "b", through: 6).ranges == [6...6])
        #expect(log.isPending(6, for: "b", through: 6) && !log.isPending(6, for: "a", through: 6))
    }

    @Test func noDestinationMeansNothingLeaves() {
        var log = LogCursors(floor: 0)
        #expect(log.markDone([1, 2], by: "unknown", through: 5).newly.isEmpty)
        #expect(log.depth(through: 5) == 5)
        log.register("a")
        _ = log.markDone([1, 2], by: "a", through: 5)
        #expect(log.unregister("a", through: 5).isEmpty, "with no destination left, events wait for the next")
        #expect(log.depth(through: 5) == 3)
    }
}

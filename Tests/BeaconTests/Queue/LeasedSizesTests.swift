@testable import Beacon
import BeaconWire
import Testing

/// The sizes a settle counts leaving the queue without reading them again, against a
/// plain dictionary of sequence to size.
@Suite("Leased sizes")
struct LeasedSizesTests {
    @Test("a range held whole sums; one with a number missing is unknown")
    func rangesHeldWholeSum() {
        var sizes = LeasedSizes()
        sizes.record(Self.events([(1, 10), (2, 20), (3, 30), (5, 50)]))
        #expect(sizes.count == 4)
        #expect(sizes.bytes(of: SequenceRanges([1...3])) == 60)
        #expect(sizes.bytes(of: SequenceRanges([2...2, 5...5])) == 70)
        #expect(sizes.bytes(of: SequenceRanges([3...5])) == nil, "4 was never read")
        #expect(sizes.bytes(of: SequenceRanges([5...6])) == nil, "6 was never read")
        #expect(sizes.bytes(of: SequenceRanges([0...1])) == nil, "0 was never read")
        #expect(sizes.bytes(of: SequenceRanges()) == 0)
    }

    @Test("a peek that reads again from an earlier point replaces what it overlaps")
    func aRereadReplaces() {
        var sizes = LeasedSizes()
        sizes.record(Self.events([(1, 10), (2, 20), (3, 30), (4, 40)]))
        sizes.record(Self.events([(2, 7), (3, 8)]))
        #expect(sizes.bytes(of: SequenceRanges([1...3])) == 25)
        #expect(sizes.bytes(of: SequenceRanges([4...4])) == nil, "forgotten: the new read stopped before it")
    }

    @Test("settling forgets every number up to the one settled")
    func removeThrough() {
        var sizes = LeasedSizes()
        sizes.record(Self.events([(10, 1), (11, 2), (12, 3)]))
        sizes.removeThrough(11)
        #expect(sizes.count == 1)
        #expect(sizes.bytes(of: SequenceRanges([11...12])) == nil)
        #expect(sizes.bytes(of: SequenceRanges([12...12])) == 3)
        sizes.removeThrough(.max)
        #expect(sizes.count == 0)
        sizes.removeThrough(.min)
        #expect(sizes.count == 0)
    }

    @Test("extreme ranges answer unknown, never trap")
    func extremeRanges() {
        var sizes = LeasedSizes()
        sizes.record(Self.events([(1, 1), (2, 1)]))
        #expect(sizes.bytes(of: SequenceRanges([Int64.min...Int64.max])) == nil)
        #expect(sizes.bytes(of: SequenceRanges([Int64.max...Int64.max])) == nil)
        #expect(sizes.bytes(of: SequenceRanges([Int64.min...1])) == nil)
    }

    /// Random peeks (runs with holes, some reading again from earlier), settles and
    /// queries: each answer is the dictionary's sum when it holds every number asked, and
    /// unknown (`nil`) when it lacks any.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func agreesWithADictionary(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var sizes = LeasedSizes()
        var model: [Int64: Int] = [:]
        var next: Int64 = 1
        for _ in 0..<400 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                // A peek: from the next number, or again from a little earlier.
                let start = max(1, next - Int64.random(in: 0...3, using: &random))
                var read: [(Int64, Int)] = []
                var sequence = start
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    read.append((sequence, Int.random(in: 0...100, using: &random)))
                    sequence += Int64.random(in: 1...2, using: &random)
                }
                sizes.record(Self.events(read))
                for key in model.keys where key >= start { model[key] = nil }
                for (sequence, size) in read { model[sequence] = size }
                next = max(next, sequence)
            case 2:
                let through = Int64.random(in: 0...next, using: &random)
                sizes.removeThrough(through)
                for key in model.keys where key <= through { model[key] = nil }
            default:
                let lower = Int64.random(in: 0...next, using: &random)
                let ranges = SequenceRanges([lower...(lower + Int64.random(in: 0...4, using: &random))])
                let numbers = ranges.ranges.flatMap { Array($0) }
                let expected = numbers.allSatisfy { model[$0] != nil } ? numbers.reduce(0) { $0 + (model[$1] ?? 0) } : nil
                #expect(sizes.bytes(of: ranges) == expected, "seed \(seed): \(ranges.ranges) against \(model)")
            }
            #expect(sizes.count == model.count)
        }
    }

    private static func events(_ sizes: [(Int64, Int)]) -> [QueuedEvent] {
        sizes.map { QueuedEvent(sequence: $0.0, messageId: "m\($0.0)", name: "e", payload: Array(repeating: 0x20, count: $0.1)) }
    }
}

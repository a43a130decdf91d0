@testable import Beacon
import Testing

/// The batcher's check for a `messageId` repeated in a batch, against a plain `Set` of
/// byte arrays: with the real hash, and with one under which every id collides, so that
/// each answer rests on the byte comparisons and the probing alone.
@Suite("Message id table")
struct MessageIdTableTests {
    /// The reference: the first index whose bytes came before.
    static func referenceRepeat(_ events: [QueuedEvent]) -> Int? {
        var seen = Set<[UInt8]>()
        return events.firstIndex { !seen.insert(Array($0.messageIdBytes)).inserted }
    }

    static func event(_ index: Int, id: [UInt8]) -> QueuedEvent {
        QueuedEvent(sequence: Int64(index + 1), messageIdBytes: id[...], nameBytes: [0x65][...], payloadBytes: Array("{}".utf8)[...])
    }

    /// Random batches of ids 0 to 40 bytes long (every tail length past the 8-byte words),
    /// drawn from a small pool so that repeats and near-misses (one byte apart) are common.
    static func randomBatches(count: Int) -> [[QueuedEvent]] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { round in
            let size = round == 0 ? 0 : Int.random(in: 1...60, using: &generator)
            let base = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let pool: [[UInt8]] = (0..<max(1, Int.random(in: 1...size * 2 + 1, using: &generator))).map { variant in
                var id = base
                if !id.isEmpty { id[Int.random(in: 0..<id.count, using: &generator)] ^= UInt8(truncatingIfNeeded: variant) }
                if variant % 5 == 4 { id.append(UInt8(truncatingIfNeeded: variant)) }
                return id
            }
            return (0..<size).map { event($0, id: pool.randomElement(using: &generator) ?? []) }
        }
    }

    @Test("the first repeat matches a plain set's, on 2,000 random batches")
    func matchesAReference() {
        for events in Self.randomBatches(count: 2_000) {
            #expect(MessageIdTable.firstRepeat(in: events) == Self.referenceRepeat(events))
        }
    }

    @Test("with every hash colliding, the answers are still the reference's: hits are compared byte for byte")
    func collidingHashesStillCompareBytes() {
        for events in Self.randomBatches(count: 500) {
            #expect(MessageIdTable.firstRepeat(in: events, hash: { _ in 42 }) == Self.referenceRepeat(events))
        }
    }

    @Test("ids that differ only in their last byte, or only in length, are different ids")
    func nearMissesAreDifferent() {
        let id = Array("0190f5c2-7d1e-7a4b-9c3e-5f2a1b0c9d8e".utf8)
        var lastByte = id
        lastByte[lastByte.count - 1] ^= 1
        let events = [Self.event(0, id: id), Self.event(1, id: lastByte), Self.event(2, id: id + [0]), Self.event(3, id: Array(id.dropLast())), Self.event(4, id: [])]
        #expect(MessageIdTable.firstRepeat(in: events) == nil)
        #expect(MessageIdTable.firstRepeat(in: events + [Self.event(5, id: id)]) == 5)
        #expect(MessageIdTable.firstRepeat(in: events + [Self.event(5, id: [])]) == 5)
    }

    @Test("the hash spreads ids that differ in one byte over the table")
    func hashSpreadsNearIds() {
        let base = Array("0190f5c2-7d1e-7a4b-9c3e-5f2a1b0c9d8e".utf8)
        var buckets = Set<UInt64>()
        for position in base.indices {
            var id = base
            id[position] ^= 0x01
            buckets.insert(MessageIdTable.hash(id[...]) & 1023)
        }
        // 36 ids in 1,024 buckets: a hash that ignored any position or mixed poorly would pile them up.
        #expect(buckets.count >= 30)
    }
}

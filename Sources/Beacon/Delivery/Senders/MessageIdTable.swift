/// Finds a `messageId` repeated within one batch, by its bytes (as a collector dedups):
/// the check the ``Batcher`` makes on every batch before it goes out.
///
/// An open-addressing table of the batch's own indices, keyed by a seeded 64-bit hash of
/// each id's bytes and confirmed byte for byte. A `Set` of byte-slice keys did the same
/// through `Hasher` and cost about a twentieth of the engine's CPU in a 500-event drain.
/// The seed is drawn once per process, so ids chosen by a client cannot be made to
/// collide on purpose; even if every hash collided, the table would stay correct (every
/// hit is compared byte for byte), only slower, and a batch is bounded.
enum MessageIdTable {
    /// The index of the first event in `events` whose `messageId` bytes an earlier event
    /// has, or `nil` when every id is there once.
    static func firstRepeat(in events: [QueuedEvent]) -> Int? {
        firstRepeat(in: events, hash: hash)
    }

    /// The same with another hash: tests make every id collide to check the comparisons.
    static func firstRepeat(in events: [QueuedEvent], hash: (ArraySlice<UInt8>) -> UInt64) -> Int? {
        guard events.count > 1 else { return nil }
        // Twice as many slots as events at least, a power of two: probes stay short.
        var slotCount = 16
        while slotCount < events.count * 2 { slotCount <<= 1 }
        let mask = slotCount - 1
        var slots = [Int](repeating: -1, count: slotCount)
        var hashes = [UInt64](repeating: 0, count: events.count)
        for index in events.indices {
            let bytes = events[index].messageIdBytes
            let hashed = hash(bytes)
            hashes[index] = hashed
            var slot = Int(truncatingIfNeeded: hashed) & mask
            while slots[slot] >= 0 {
                let other = slots[slot]
                if hashes[other] == hashed, events[other].messageIdBytes.elementsEqual(bytes) { return index }
                slot = (slot + 1) & mask
            }
            slots[slot] = index
        }
        return nil
    }

    /// Drawn once per process.
    private static let seed = UInt64.random(in: .min ... .max)

    /// A 64-bit hash of `bytes`, eight at a time, then a final mix (SplitMix64's constants).
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var hashed = seed ^ (UInt64(truncatingIfNeeded: raw.count) &* 0x9E37_79B9_7F4A_7C15)
            var offset = 0
            while offset + 8 <= raw.count {
                hashed = (hashed ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                hashed ^= hashed >> 31
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count {
                tail |= UInt64(raw[offset]) << shift
                shift += 8
                offset += 1
            }
            hashed = (hashed ^ tail) &* 0x94D0_49BB_1331_11EB
            hashed ^= hashed >> 30
            hashed &*= 0xBF58_476D_1CE4_E5B9
            return hashed ^ (hashed >> 31)
        }
    }
}

/// The `messageId`s of one batch seen so far, to refuse a repeat without making a
/// `String` of each.
///
/// Two ids are the same id exactly when their UTF-8 bytes are equal, after escapes are
/// resolved (`"a\u0062"` and `"ab"` are the same id): the rule SQLite's `PRIMARY KEY`
/// applies across batches, so a batch and its redelivery agree. Canonically equivalent
/// spellings (`"é"` as U+00E9 and as `e` + U+0301) are different ids, as they are
/// different bytes.
struct MessageIdSet {
    /// Open addressing, linear probing: an index into `ids`, or -1 for an empty slot.
    private var slots: [Int]
    private var mask: Int
    private var ids: [FieldValue] = []

    /// An empty set sized for `capacity` ids (it grows past that).
    init(capacity: Int) {
        var size = 8
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: -1, count: size)
        mask = size - 1
        ids.reserveCapacity(capacity)
    }

    /// Adds the id whose text is in `text`; false when an id of the same bytes is already in the set.
    mutating func insert(_ id: FieldValue, in text: ParsedText) -> Bool {
        let bytes = text.bytes(id)
        var slot = Self.hash(bytes) & mask
        while slots[slot] >= 0 {
            if Self.equal(text.bytes(ids[slots[slot]]), bytes) { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = ids.count
        ids.append(id)
        if ids.count * 2 > slots.count { grow(text) }
        return true
    }

    /// Doubles the table, so it stays at most half full (probing stays short, and ends).
    private mutating func grow(_ text: ParsedText) {
        slots = Array(repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for (position, id) in ids.enumerated() {
            var slot = Self.hash(text.bytes(id)) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = position
        }
    }

    /// Hasher is seeded per process, so a batch of crafted ids cannot pile into one slot.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }

    private static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for offset in 0..<lhs.count where lhs[offset] != rhs[offset] {
            return false
        }
        return true
    }
}

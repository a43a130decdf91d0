/// The `messageId`s of one batch seen so far, to refuse a repeat without making a
/// `String` of each.
///
/// Ids compare as Swift compares `String`s, the collector's rule from the start: after
/// escapes are resolved (`"a\u0062"` and `"ab"` are the same id) and by Unicode canonical
/// equivalence (`"é"` as U+00E9 and as `e` + U+0301 are the same id). For ASCII text that
/// is plain byte equality, so ASCII ids (UUIDs: nearly all of them) are hashed and
/// compared as bytes. The first id with a non-ASCII byte moves the batch to a
/// `Set<String>` holding every id seen, so the rule never changes with the id's spelling.
struct MessageIdSet {
    /// Open addressing, linear probing: an index into `ids`, or -1 for an empty slot.
    private var slots: [Int]
    private var mask: Int
    private var ids: [FieldValue] = []
    /// Every id seen, once a non-ASCII one has shown up.
    private var strings: Set<String>?

    /// An empty set sized for `capacity` ids (it grows past that).
    init(capacity: Int) {
        var size = 8
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: -1, count: size)
        mask = size - 1
        ids.reserveCapacity(capacity)
    }

    /// Adds the id whose text is in `text`; false when an equal id is already in the set.
    mutating func insert(_ id: FieldValue, in text: ParsedText) -> Bool {
        let bytes = text.bytes(id)
        if strings == nil && !Self.isASCII(bytes) {
            strings = Set(ids.map { String(decoding: text.bytes($0), as: UTF8.self) })
        }
        if strings != nil {
            return strings!.insert(String(decoding: bytes, as: UTF8.self)).inserted
        }
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

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var bits: UInt8 = 0
        for byte in bytes { bits |= byte }
        return bits < 0x80
    }

    private static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for offset in 0..<lhs.count where lhs[offset] != rhs[offset] {
            return false
        }
        return true
    }
}

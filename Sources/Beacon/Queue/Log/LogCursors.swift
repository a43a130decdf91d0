/// Where each destination stands in the queue's log, and what has left it: the whole
/// bookkeeping of the SQLite queue as arithmetic on sequence numbers, with no row read.
///
/// Sequence numbers are handed out contiguously, so every number in `floor + 1 ..< nextSeq`
/// is an event in the log. An event **leaves** the queue when every registered
/// destination is done with it (delivered, dead-lettered or filtered), or when the
/// overflow policy drops it: it joins `gone`. Each destination has a `cursor` (it is done
/// with everything up to it) and the numbers above it that it settled out of order
/// (`done`). The floor and the cursors absorb what follows them contiguously, so the
/// range sets stay a few ranges long; a segment of the log whose numbers all lie at or
/// below the floor is dropped whole.
///
/// A value type with no I/O: ``SQLiteEventQueue`` reads it in each write transaction,
/// applies the transaction's change, and writes back what changed.
struct LogCursors: Sendable, Hashable {
    /// One destination's progress.
    struct Position: Sendable, Hashable {
        /// Done with every event at or below it.
        var cursor: Int64
        /// Done with these, above `cursor`.
        var done = SequenceRanges()
    }

    /// Every event at or below it has left.
    var floor: Int64
    /// Events that left above the floor.
    var gone = SequenceRanges()
    var positions: [String: Position] = [:]

    /// The events queued among `floor + 1 ... last`.
    func queued(through last: Int64) -> SequenceRanges {
        guard last > floor else { return SequenceRanges() }
        return SequenceRanges([(floor + 1)...last]).subtracting(gone)
    }

    /// Events queued: `last` is the newest sequence number handed out.
    func depth(through last: Int64) -> Int {
        Int(clamping: queued(through: last).count)
    }

    /// What `name` is not done with among the queued events (nothing for an unknown one).
    func pending(for name: String, through last: Int64) -> SequenceRanges {
        guard let position = positions[name] else { return SequenceRanges() }
        let from = max(position.cursor, floor)
        guard last > from else { return SequenceRanges() }
        return SequenceRanges([(from + 1)...last]).subtracting(gone).subtracting(position.done)
    }

    /// Whether `sequence` is queued and `name` is not done with it.
    func isPending(_ sequence: Int64, for name: String, through last: Int64) -> Bool {
        guard let position = positions[name], sequence > max(floor, position.cursor), sequence <= last else { return false }
        return !gone.contains(sequence) && !position.done.contains(sequence)
    }

    /// Everything `name` is done with (or that left), within `floor + 1 ... last`.
    private func done(by position: Position, through last: Int64) -> SequenceRanges {
        var done = position.done.union(gone)
        if position.cursor > floor { done.insert((floor + 1)...position.cursor) }
        return done.clamped(floor + 1, last)
    }

    /// A destination registered now starts with every queued event pending.
    mutating func register(_ name: String) {
        guard positions[name] == nil else { return }
        positions[name] = Position(cursor: floor)
    }

    /// Forgets `name`; returns the events that leave because every remaining destination
    /// is done with them (none when no destination remains: events wait for the next).
    mutating func unregister(_ name: String, through last: Int64) -> SequenceRanges {
        guard positions.removeValue(forKey: name) != nil, !positions.isEmpty else { return SequenceRanges() }
        var left = queued(through: last)
        for position in positions.values { left = left.intersection(done(by: position, through: last)) }
        gone.formUnion(left)
        normalize()
        return left
    }

    /// Marks `sequences` done for `name`. Returns those that were pending for it, and
    /// among them those that leave the queue (every other destination is done with them).
    mutating func markDone(_ sequences: [Int64], by name: String, through last: Int64) -> (newly: SequenceRanges, left: SequenceRanges) {
        guard !sequences.isEmpty, var position = positions[name] else { return (SequenceRanges(), SequenceRanges()) }
        let newly = SequenceRanges(sequences: sequences).intersection(pending(for: name, through: last))
        guard !newly.isEmpty else { return (newly, newly) }
        position.done.formUnion(newly)
        positions[name] = position
        var left = newly
        for (other, otherPosition) in positions where other != name {
            left = left.intersection(done(by: otherPosition, through: last))
        }
        gone.formUnion(left)
        normalize()
        return (newly, left)
    }

    /// A dead letter's copy queued again as `sequence`: every destination but `name` is
    /// done with it.
    mutating func queueCopy(_ sequence: Int64, for name: String) {
        for other in positions.keys where other != name {
            positions[other]?.done.insert(sequence...sequence)
        }
        normalize()
    }

    /// The overflow policy drops `victims` (queued events): returns, for each destination,
    /// how many of them it had pending.
    mutating func drop(_ victims: SequenceRanges, through last: Int64) -> [String: Int] {
        var lost: [String: Int] = [:]
        for name in positions.keys {
            lost[name] = Int(clamping: pending(for: name, through: last).intersection(victims).count)
        }
        gone.formUnion(victims)
        normalize()
        return lost
    }

    /// Moves each cursor past what follows it contiguously (done or gone), the floor past
    /// what every destination is done with and what left, and forgets what lies below.
    mutating func normalize() {
        for (name, var position) in positions {
            position.cursor = max(position.cursor, floor)
            position.cursor = position.done.union(gone).endOfRun(after: position.cursor)
            position.done.removeThrough(position.cursor)
            position.done = position.done.subtracting(gone)
            positions[name] = position
        }
        if let lowest = positions.values.map(\.cursor).min() { floor = max(floor, lowest) }
        floor = gone.endOfRun(after: floor)
        gone.removeThrough(floor)
        for (name, var position) in positions where position.cursor < floor {
            position.cursor = floor
            positions[name] = position
        }
    }
}

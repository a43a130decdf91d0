extension QueueDepth {
    /// Whether `later` was read after this one. The store's counters only grow, so a
    /// depth every one of whose counters is at or below `later`'s, and one of them below,
    /// is older. Two depths that each lead on some counter, or that name different
    /// destinations, are not ordered.
    ///
    /// A queue reports each depth on the thread that changed it, so two reports can
    /// arrive in the other order: a commit's, taken on the writer's thread, after the
    /// settle of the batch that commit woke.
    func isOvertaken(by later: QueueDepth) -> Bool {
        var behind = false
        func compare(_ mine: Int, _ theirs: Int) -> Bool {
            if mine > theirs { return false }
            if mine < theirs { behind = true }
            return true
        }
        let totals = [
            (self.totals.committed, later.totals.committed), (self.totals.delivered, later.totals.delivered),
            (self.totals.deadLettered, later.totals.deadLettered), (self.totals.dropped, later.totals.dropped),
            (self.totals.deadLettersRetried, later.totals.deadLettersRetried),
            (self.totals.deadLettersPurged, later.totals.deadLettersPurged),
        ]
        for (mine, theirs) in totals where !compare(mine, theirs) { return false }
        guard destinations.count == later.destinations.count else { return false }
        for (name, mine) in destinations {
            guard let theirs = later.destinations[name] else { return false }
            let counters = [
                (mine.delivered, theirs.delivered), (mine.deadLettered, theirs.deadLettered),
                (mine.filtered, theirs.filtered), (mine.dropped, theirs.dropped),
            ]
            for (a, b) in counters where !compare(a, b) { return false }
        }
        return behind
    }
}

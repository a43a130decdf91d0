extension QueueDepth {
    /// Whether `later` was read after this one. The store's counters only grow, so a
    /// depth every one of whose counters is at or below `later`'s, and one of them below,
    /// is older. Two depths that each lead on some counter, or that name different
    /// destinations, are not ordered.
    ///
    /// A queue reports each depth on the thread that changed it, so two reports can
    /// arrive in the other order: a commit's, taken on the writer's thread, after the
    /// settle of the batch that commit woke. The observer applies every depth through
    /// this check, so it compares in place, without allocating.
    func isOvertaken(by later: QueueDepth) -> Bool {
        var order = CounterOrder()
        order.compare(totals.committed, later.totals.committed)
        order.compare(totals.delivered, later.totals.delivered)
        order.compare(totals.deadLettered, later.totals.deadLettered)
        order.compare(totals.dropped, later.totals.dropped)
        order.compare(totals.deadLettersRetried, later.totals.deadLettersRetried)
        order.compare(totals.deadLettersPurged, later.totals.deadLettersPurged)
        guard !order.ahead, destinations.count == later.destinations.count else { return false }
        for (name, mine) in destinations {
            guard let theirs = later.destinations[name] else { return false }
            order.compare(mine.delivered, theirs.delivered)
            order.compare(mine.deadLettered, theirs.deadLettered)
            order.compare(mine.filtered, theirs.filtered)
            order.compare(mine.dropped, theirs.dropped)
            if order.ahead { return false }
        }
        return order.behind
    }
}

/// Counters compared pairwise: whether any was ahead, and whether any was behind.
private struct CounterOrder {
    var ahead = false
    var behind = false

    mutating func compare(_ mine: Int, _ theirs: Int) {
        if mine > theirs { ahead = true }
        if mine < theirs { behind = true }
    }
}

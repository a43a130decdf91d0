import Beacon

/// The dead-letter view's own state: the search (`/`), the letters marked for a bulk
/// action (Space), the detail pane (Enter), and what the last read of the store found.
///
/// The run loop reads the store (``DeadLetterReading``) while the view is open and hands
/// the result to ``DashboardState/receive(_:)``; without a reader the view lists the
/// snapshot's newest letters, filtered by the same query.
public struct DeadLetterWorkbench: Sendable, Hashable {
    /// The search; empty: every letter.
    public var query = DeadLetterQuery()
    /// Letters marked with Space: `r` and `x` act on them (on the one under the cursor
    /// when none is marked).
    public var marked: Set<Int64> = []
    /// The letter whose detail pane is open, and how far it is scrolled.
    public var detail: Detail?
    /// What the last read found for ``query``.
    public var results: Results?

    /// How many letters the list reads at most.
    public static let pageLimit = 200

    public init() {}

    /// The detail pane of one letter.
    public struct Detail: Sendable, Hashable {
        /// The letter shown.
        public var id: Int64
        /// Lines scrolled past.
        public var scroll = 0
        /// The whole letter, once read (`nil` until then, or when no reader is given).
        public var letter: DeadLetter?

        public init(id: Int64, scroll: Int = 0, letter: DeadLetter? = nil) {
            self.id = id
            self.scroll = scroll
            self.letter = letter
        }
    }

    /// The letters a query found, newest first, and how many in all.
    public struct Results: Sendable, Hashable {
        public var query: DeadLetterQuery
        public var letters: [DeadLetterSummary]
        public var total: Int

        public init(query: DeadLetterQuery, letters: [DeadLetterSummary], total: Int) {
            self.query = query
            self.letters = letters
            self.total = max(total, letters.count)
        }

        /// The results of reading `page` for `query`.
        public init(query: DeadLetterQuery, page: DeadLetterPage) {
            self.init(query: query, letters: page.letters.map(DeadLetterSummary.init), total: page.total)
        }
    }

    /// The letters to list, and how many match in all: the last read when it is for the
    /// current query, else the snapshot's newest letters that match it.
    public func letters(in snapshot: EngineSnapshot) -> (letters: [DeadLetterSummary], total: Int) {
        if let results, results.query == query { return (results.letters, results.total) }
        let recent = snapshot.recentDeadLetters
        if query.isEmpty { return (recent, max(snapshot.deadLetters, recent.count)) }
        let found = recent.filter(query.matches)
        return (found, found.count)
    }
}

extension DeadLetterQuery {
    /// Whether a listed letter passes (its payload preview stands in for the event JSON).
    func matches(_ summary: DeadLetterSummary) -> Bool {
        if let destination, summary.destination != destination { return false }
        if let reason, !Self.contains(summary.reason, reason) { return false }
        if let text {
            guard [summary.messageId, summary.name, summary.reason, summary.preview].contains(where: { Self.contains($0, text) })
            else { return false }
        }
        return true
    }
}

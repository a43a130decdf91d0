/// The newest dead letters a query finds, and how many it finds in all.
public struct DeadLetterPage: Sendable, Hashable {
    /// The newest matches, newest first.
    public var letters: [DeadLetter]
    /// Every match in the store (at least `letters.count`).
    public var total: Int

    public init(letters: [DeadLetter], total: Int) {
        self.letters = letters
        self.total = max(total, letters.count)
    }
}

/// What a retry or a purge of dead letters did, in one transaction.
public struct DeadLetterChange: Sendable, Hashable {
    /// The ids retried (each back in the queue once, for its destination only) or purged.
    public var done: [Int64]
    /// Ids asked for that are not in the store (never were, or already retried or purged).
    public var missing: [Int64]
    /// Ids left as they were, with the reason (a retry for a destination no longer registered).
    public var refused: [Refusal]
    /// The destinations of the letters done.
    public var destinations: Set<String>

    /// A dead letter left as it was.
    public struct Refusal: Sendable, Hashable {
        public var id: Int64
        public var reason: String
        public init(id: Int64, reason: String) {
            self.id = id
            self.reason = reason
        }
    }

    public init(done: [Int64] = [], missing: [Int64] = [], refused: [Refusal] = [], destinations: Set<String> = []) {
        self.destinations = destinations
        self.done = done
        self.missing = missing
        self.refused = refused
    }
}

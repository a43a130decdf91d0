/// What the stores hold at the end of a run, gathered from the collectors' stores and the
/// engine's store once the engine has stopped: the facts the invariants are checked
/// against. The runner gathers it, and a test can gather it again on its own.
public struct SimulationEvidence: Sendable, Hashable, Codable {
    /// The `messageId`s the engine acknowledged (answered 200 to): tracked events.
    public var tracked: Set<String>
    /// The `messageId`s posted and not acknowledged (an error answer, a lost connection):
    /// each may have been stored or not, but never twice.
    public var inDoubt: Set<String>
    /// The `messageId`s of poison events among them (the collectors refuse those).
    public var poison: Set<String>
    /// What each destination (one collector each) holds.
    public var destinations: [Destination]

    /// One destination's side of the evidence.
    public struct Destination: Sendable, Hashable, Codable {
        /// The destination's (and its collector's) name.
        public var name: String
        /// Each `messageId` the collector's store holds, with its number of rows there.
        public var stored: [String: Int]
        /// Each `messageId` the engine dead-lettered for this destination, with the reason.
        public var deadLettered: [String: String]
        /// Events still queued for this destination.
        public var pending: Int
        /// Events the overflow policy dropped before this destination had them, over the
        /// store's life.
        public var dropped: Int
        /// Deliveries the collector recognised as already stored (redeliveries).
        public var duplicatesSent: Int

        public init(
            name: String, stored: [String: Int], deadLettered: [String: String], pending: Int, dropped: Int,
            duplicatesSent: Int
        ) {
            self.name = name
            self.stored = stored
            self.deadLettered = deadLettered
            self.pending = pending
            self.dropped = dropped
            self.duplicatesSent = duplicatesSent
        }
    }

    public init(tracked: Set<String>, inDoubt: Set<String>, poison: Set<String>, destinations: [Destination]) {
        self.tracked = tracked
        self.inDoubt = inDoubt
        self.poison = poison
        self.destinations = destinations
    }
}

import BeaconWire
import Foundation
import GRDB

/// A store's state as read from its file.
public struct StoreStatus: Sendable, Hashable {
    public var path: String
    /// Events queued.
    public var depth: Int
    /// Bytes of event JSON queued.
    public var bytes: Int
    /// Events in the dead-letter table.
    public var deadLetterCount: Int
    /// Lifetime counters.
    public var totals: QueueTotals
    /// When the oldest queued event was tracked.
    public var oldestEvent: Timestamp?
    /// Recent batches, newest first.
    public var recentBatches: [BatchRecord]
    /// Recent dead letters, newest first.
    public var recentDeadLetters: [DeadLetter]
    /// Each registered destination's progress, by name.
    public var destinations: [String: DestinationDepth] = [:]
    /// When each destination's oldest pending event was committed (those with any).
    public var oldestPending: [String: Timestamp] = [:]
    /// When each destination's newest successful batch in the history started.
    public var lastSuccess: [String: Timestamp] = [:]
    /// The destinations an operator paused and has not resumed.
    public var pausedDestinations: Set<String> = []
}

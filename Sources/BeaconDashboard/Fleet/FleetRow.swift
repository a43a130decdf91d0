import Beacon
import BeaconWire

/// One engine's summary line, from its latest snapshot: alive, lost or without an
/// engine; its state; depth; oldest pending; rates; dead letters; failing destinations.
/// What a snapshot does not say is `nil`, shown as unknown.
public struct FleetRow: Sendable, Hashable {
    /// The engine's name on the list.
    public var name: String
    /// What the engine is doing, worst first.
    public var condition: Condition
    /// Events queued (`nil` before the first snapshot).
    public var depth: Int?
    /// The oldest pending event's age, in milliseconds, over every destination.
    public var oldestPending: Int64?
    /// Events in and out per second; `nil` when the engine is lost or none serves the store.
    /// Out counts every destination's deliveries (an event sent to two counts twice), as
    /// their own rates say: the queue's rate out counts only events every destination is
    /// done with, and read 0/s while a backup delivered 20/s beside a main that was down.
    public var rateIn: Double?
    public var rateOut: Double?
    /// Dead letters held.
    public var deadLetters: Int?
    /// Destinations failing now: backing off, stalled, paused for credentials, whose last
    /// request failed, or with at least ``failingShare`` of their recent requests failed.
    public var failing: [String]

    /// The share of recent requests failed from which a destination counts as failing
    /// (a destination that fails 30 % of its requests is, though it delivers between).
    public static let failingShare = 0.1

    /// What an engine is doing, in order of how much it needs an operator.
    public enum Condition: Sendable, Hashable {
        /// No snapshot yet.
        case waiting
        /// It answered once and stopped: lost since then.
        case lost(since: Timestamp)
        /// Its store cannot be read (an empty file, not a store, a loop of links, gone): why.
        case unreadable(reason: String)
        /// Its store cannot be written.
        case storageFault
        /// Its queue is at its bound.
        case queueFull
        /// A destination has had nothing delivered for longer than the stall threshold.
        case stalled
        /// A destination waits before trying again.
        case backingOff(nextRetry: Timestamp)
        /// Sending is switched off.
        case offline
        /// A destination is paused (by the operator or for its credentials).
        case paused
        /// Delivering.
        case sending
        /// Nothing to do.
        case idle
        /// A destination has not reported yet (its engine is starting): not known to be idle.
        case starting
        /// Nothing serves its store: depth and dead letters come from the file alone.
        case noEngine
    }

    /// The row for `name` from `snapshot` (`nil`: none arrived yet).
    public init(name: String, snapshot: EngineSnapshot?) {
        self.name = name
        guard let snapshot else {
            condition = .waiting
            failing = []
            return
        }
        if let reason = snapshot.unreadableStore {
            // Nothing read stands for the store now: every figure unknown.
            condition = .unreadable(reason: reason)
            failing = []
            return
        }
        depth = snapshot.depth
        deadLetters = snapshot.deadLetters
        oldestPending = snapshot.destinations.compactMap { $0.oldestPendingAge(at: snapshot.time) }.max()
        failing = snapshot.destinations.filter { destination in
            if destination.stalled || destination.failingSince != nil { return true }
            if let rate = destination.failureRate, rate >= Self.failingShare { return true }
            switch destination.state {
            case .backingOff, .paused: return true
            case .starting, .idle, .sending, .pausedByOperator, .offline: return false
            }
        }.map(\.name)
        let answers = snapshot.engineLostAt == nil && !snapshot.isReadOnlyMonitor
        if answers {
            rateIn = snapshot.rateIn
            let rates = snapshot.destinations.map(\.deliveryRate)
            if rates.count > 1, rates.allSatisfy({ $0 != nil }) {
                rateOut = rates.reduce(0) { $0 + max(0, $1 ?? 0) }
            } else {
                rateOut = snapshot.rateOut
            }
        }
        let states = snapshot.destinations.map(\.state)
        if let lost = snapshot.engineLostAt {
            condition = .lost(since: lost)
        } else if snapshot.isReadOnlyMonitor {
            condition = .noEngine
        } else if snapshot.storageProblem != nil {
            condition = .storageFault
        } else if snapshot.isQueueFull {
            condition = .queueFull
        } else if snapshot.destinations.contains(where: \.stalled) {
            condition = .stalled
        } else if let retry = states.compactMap(\.nextRetryAt).min() {
            condition = .backingOff(nextRetry: retry)
        } else if snapshot.isOffline {
            condition = .offline
        } else if states.contains(where: \.isPaused) {
            condition = .paused
        } else if states.contains(.sending) {
            condition = .sending
        } else if states.isEmpty || states.contains(.starting) {
            condition = .starting
        } else {
            condition = .idle
        }
    }
}

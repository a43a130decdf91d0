import Logging
import Synchronization

/// Drops events before they are queued, by name: a blocklist, and per-name sampling
/// rates. Rules change live (remote configuration sets them); every dropped event is
/// counted (``counts``) and logged at debug level, never dropped silently.
///
/// Sampling is deterministic: an event is kept when the hash of its `messageId`, as a
/// fraction of 0..<1, is below the rate, so a given event always gets the same answer.
///
/// ```swift
/// let filter = EventFilter()
/// filter.setRules(EventFilter.Rules(blocklist: ["Debug Event"], sampling: ["Page Viewed": 0.5]))
/// let tracker = Tracker(queue: queue, filter: filter)
/// ```
public final class EventFilter: Sendable {
    /// What to drop.
    public struct Rules: Sendable, Hashable {
        /// Event names never queued.
        public var blocklist: Set<String>
        /// Share of events kept (0...1), by name; names not listed are all kept.
        public var sampling: [String: Double]

        /// Creates rules; the default keeps everything.
        public init(blocklist: Set<String> = [], sampling: [String: Double] = [:]) {
            self.blocklist = blocklist
            self.sampling = sampling
        }

        /// Whether the rules keep every event without looking at it.
        var isEmpty: Bool { blocklist.isEmpty && sampling.isEmpty }
    }

    /// What the filter said about one event.
    public enum Decision: Sendable, Hashable {
        case keep
        /// The name is on the blocklist.
        case blocked
        /// Sampling left it out.
        case sampledOut
    }

    /// Events dropped since the filter was made.
    public struct Counts: Sendable, Hashable {
        /// Dropped by the blocklist.
        public var blocked = 0
        /// Dropped by sampling.
        public var sampledOut = 0
        public init(blocked: Int = 0, sampledOut: Int = 0) {
            self.blocked = blocked
            self.sampledOut = sampledOut
        }
    }

    private struct State {
        var rules: Rules
        var counts = Counts()
    }

    private let state: Mutex<State>
    /// Whether any rule is set: without one, ``decide(name:messageId:)`` keeps the event
    /// without taking the lock or hashing anything (the common case, on every `track`).
    private let hasRules: Atomic<Bool>
    private let logger: Logger

    /// Creates a filter with `rules`.
    public init(rules: Rules = Rules(), logger: Logger = Logger(label: "beacon.filter")) {
        state = Mutex(State(rules: rules))
        hasRules = Atomic(!rules.isEmpty)
        self.logger = logger
    }

    /// The rules now.
    public var rules: Rules { state.withLock { $0.rules } }

    /// Replaces the rules; they apply from the next event on.
    public func setRules(_ rules: Rules) {
        state.withLock { state in
            state.rules = rules
            // Under the lock, so two concurrent changes leave the flag of the last one.
            hasRules.store(!rules.isEmpty, ordering: .releasing)
        }
    }

    /// Events dropped so far.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Decides about one event, and counts it when dropped.
    public func decide(name: String, messageId: String) -> Decision {
        guard hasRules.load(ordering: .acquiring) else { return .keep }
        let decision = state.withLock { state -> Decision in
            let decision = Self.decision(name: name, messageId: messageId, rules: state.rules)
            switch decision {
            case .keep: break
            case .blocked: state.counts.blocked += 1
            case .sampledOut: state.counts.sampledOut += 1
            }
            return decision
        }
        if decision != .keep {
            logger.debug("event filtered", metadata: ["event": "\(name)", "message_id": "\(messageId)", "reason": "\(decision)"])
        }
        return decision
    }

    /// The pure decision.
    static func decision(name: String, messageId: String, rules: Rules) -> Decision {
        if rules.blocklist.contains(name) { return .blocked }
        guard let rate = rules.sampling[name] else { return .keep }
        return sampleFraction(messageId) < rate ? .keep : .sampledOut
    }

    /// A stable fraction in 0..<1 from an id: FNV-1a 64 of its UTF-8, top 53 bits.
    static func sampleFraction(_ id: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Double(hash >> 11) / Double(UInt64(1) << 53)
    }
}

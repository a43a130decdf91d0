import BeaconWire
import Foundation

/// The engine's `status`, declared once: what `ctl status`, `watch` and an attached
/// `beacon monitor` read. The control channel carries it as JSON (``json``); a reader
/// takes it back with ``init(json:)`` instead of reading keys by name.
///
/// Each destination's state is an explicit value (``Destination/code``) with what it
/// carries (the next retry, who paused it, the last error): what the engine does not know
/// is absent, never a default.
public struct EngineStatusReport: Codable, Sendable, Hashable {
    /// The version of the engine that answered (``BeaconVersion/current`` of its build;
    /// absent from an engine before 0.6.0).
    public var version: String?
    /// The flush policy in force, as its text (`count 100 or every 5s`).
    public var policy: String
    public var batchSize: Int
    public var offline: Bool
    /// Events committed to the store and not yet delivered to every destination.
    public var depth: Int
    /// Dead letters held now, and retried and purged over the store's life.
    public var deadLetters: Int
    public var deadLettersRetried: Int
    public var deadLettersPurged: Int
    /// The store's path.
    public var store: String
    /// The queue against its bounds.
    public var queue: Queue
    public var destinations: [Destination]
    /// Commands the control channel applied and refused (added by the server).
    public var commands: Commands?
    /// What the engine counted (absent from an engine that does not say).
    public var totals: Totals?
    /// Events per second lately, as the console's `in` and `out` show them (absent from
    /// an engine before 0.6.0).
    public var rates: Rates?
    /// The names this engine accepted most events under since it started, the busiest
    /// first (at most 10), and the events the other names account for (absent from an
    /// engine before 0.6.0).
    public var eventNames: [EventName]?
    public var otherEventNames: Int?
    /// The disk under the store (absent: a queue in memory, or an engine before 0.6.0).
    public var disk: Disk?
    /// Seconds until the queue's bound is reached at the net inflow (absent: not filling).
    public var boundInSeconds: Double?
    /// The last ten minutes, oldest first, a point per ten seconds (absent from an engine
    /// before this one): what an attached console draws its sparklines from.
    public var trend: [TrendPoint]?

    /// One point of ``trend`` (``Trend/Point``).
    public struct TrendPoint: Codable, Sendable, Hashable {
        public var depth: Int
        public var accepted: Double
        public var delivered: Double

        public init(_ point: Trend.Point) {
            depth = point.depth
            accepted = point.rateIn
            delivered = point.rateOut
        }

        /// The point, its values made sane (``Trend/Point/init(depth:rateIn:rateOut:)``).
        public var point: Trend.Point { Trend.Point(depth: depth, rateIn: accepted, rateOut: delivered) }
    }

    /// The disk under the store, as ``StoreDisk`` and the observer's estimate give it.
    public struct Disk: Codable, Sendable, Hashable {
        public var storeBytes: Int
        public var freeBytes: Int
        public var totalBytes: Int
        /// Seconds until it is full at the net inflow (`nil`: not filling).
        public var fullInSeconds: Double?
        /// Under 5 % free, or full within the hour.
        public var low: Bool

        public init(storeBytes: Int, freeBytes: Int, totalBytes: Int, fullInSeconds: Double?, low: Bool) {
            self.storeBytes = max(0, storeBytes)
            self.freeBytes = max(0, freeBytes)
            self.totalBytes = max(0, totalBytes)
            self.fullInSeconds = fullInSeconds.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            self.low = low
        }
    }

    public init(
        policy: String, batchSize: Int, offline: Bool, depth: Int, deadLetters: Int, deadLettersRetried: Int,
        deadLettersPurged: Int, store: String, queue: Queue, destinations: [Destination], commands: Commands? = nil
    ) {
        version = BeaconVersion.current
        self.policy = policy
        self.batchSize = batchSize
        self.offline = offline
        self.depth = depth
        self.deadLetters = deadLetters
        self.deadLettersRetried = deadLettersRetried
        self.deadLettersPurged = deadLettersPurged
        self.store = store
        self.queue = queue
        self.destinations = destinations
        self.commands = commands
    }

    /// The queue's counts and bounds.
    public struct Queue: Codable, Sendable, Hashable {
        /// Events held: committed and in the memory buffer.
        public var events: Int
        public var bytes: Int
        /// The bounds (absent when unbounded or unknown).
        public var maxEvents: Int?
        public var maxBytes: Int?
        /// At a bound (``QueueBounds/isFull(_:)``): what ``whenFull`` says happens.
        public var full: Bool
        /// What the queue does at its bound: `drop oldest` (they are counted as dropped)
        /// or `refuse new` (`beacon agent`'s ingest answers 503 `queue_full`; counted in
        /// ``Totals/refused``). Absent from an engine before 0.6.0.
        public var whenFull: String?

        /// Every field; unknown bounds as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(events, forKey: .events)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(maxEvents, forKey: .maxEvents)
            try container.encode(maxBytes, forKey: .maxBytes)
            try container.encode(full, forKey: .full)
            try container.encode(whenFull, forKey: .whenFull)
        }

        public init(events: Int, bytes: Int, maxEvents: Int?, maxBytes: Int?, full: Bool, whenFull: String? = nil) {
            self.events = events
            self.bytes = bytes
            self.maxEvents = maxEvents
            self.maxBytes = maxBytes
            self.full = full
            self.whenFull = whenFull
        }

        /// ``whenFull``'s two values.
        public static let dropsOldest = "drop oldest"
        public static let refusesNew = "refuse new"
    }

    /// What the engine counted. Requests, bytes, batches, retries and splits count since
    /// this engine started (from zero in each new process); events accepted, delivered,
    /// dead-lettered and dropped count over the store's life.
    public struct Totals: Codable, Sendable, Hashable {
        /// Events `track` accepted (over the store's life).
        public var accepted: Int
        /// Events delivered: acknowledged by every destination (over the store's life).
        public var delivered: Int
        /// Requests made to destinations, whatever the answer.
        public var requests: Int
        /// Bytes of those requests' bodies, as sent.
        public var bytesSent: Int
        /// Batches delivered.
        public var batchesSent: Int
        /// Sends that failed and will be retried.
        public var retried: Int
        /// Batches split in halves.
        public var split: Int
        /// Events moved to the dead-letter table (over the store's life).
        public var deadLettered: Int
        /// Events dropped by the overflow policy (over the store's life).
        public var dropped: Int
        /// Events refused at the queue's bound since this engine started, when it refuses
        /// new events there (`beacon agent`; absent from an engine before 0.6.0).
        public var refused: Int?

        public init(
            accepted: Int, delivered: Int, requests: Int, bytesSent: Int, batchesSent: Int, retried: Int, split: Int,
            deadLettered: Int, dropped: Int
        ) {
            self.accepted = accepted
            self.delivered = delivered
            self.requests = requests
            self.bytesSent = bytesSent
            self.batchesSent = batchesSent
            self.retried = retried
            self.split = split
            self.deadLettered = deadLettered
            self.dropped = dropped
        }
    }

    /// Events per second accepted and delivered (to every destination), averaged over
    /// the observer's last ticks (5 s by default): one derivation, the observer's, for
    /// the console, `ctl status` and an attached monitor.
    public struct Rates: Codable, Sendable, Hashable {
        public var accepted: Double
        public var delivered: Double

        /// A rate that is not a finite number of at least zero reads as zero (JSON has no NaN).
        public init(accepted: Double, delivered: Double) {
            self.accepted = accepted.isFinite ? max(0, accepted) : 0
            self.delivered = delivered.isFinite ? max(0, delivered) : 0
        }
    }

    /// One name's events since the engine started (``EngineSnapshot/EventName``).
    public struct EventName: Codable, Sendable, Hashable {
        public var name: String
        public var count: Int
        /// Events per second lately (`nil`: not measured yet; one not finite reads as `nil`).
        public var rate: Double?

        public init(name: String, count: Int, rate: Double?) {
            self.name = name
            self.count = max(0, count)
            self.rate = rate.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        }
    }

    /// What the control channel counted.
    public struct Commands: Codable, Sendable, Hashable {
        public var applied: Int
        public var refused: Int
    }

    /// The report as the control channel's JSON.
    public var json: JSONValue {
        // Deliberate: encoding plain values and strings cannot fail; `null` would say so.
        guard let data = try? JSONEncoder().encode(self), let value = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return .null
        }
        return value
    }

    /// Reads a report from the control channel's JSON; `nil` when it is not one (an
    /// engine of another version, a damaged answer).
    public init?(json: JSONValue) {
        // Deliberate: a `status` that does not decode is treated as no report, not as a crash.
        guard let data = try? JSONEncoder().encode(json), let report = try? JSONDecoder().decode(Self.self, from: data) else {
            return nil
        }
        self = report
    }
}

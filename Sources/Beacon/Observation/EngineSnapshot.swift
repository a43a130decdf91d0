import BeaconWire

/// An immutable picture of the engine at one moment: everything the dashboard shows.
///
/// The ``TrackingObserver`` publishes these as an `AsyncStream`; `beacon monitor` builds
/// them from another process's store. Counters add up: `accepted == delivered + depth +
/// deadLettered + dropped + buffered` once the in-flight batch settles.
public struct EngineSnapshot: Sendable, Hashable {
    /// When the snapshot was taken (wall clock).
    public var time: Timestamp

    // Header
    /// Whether sending is switched off.
    public var isOffline: Bool
    /// The flush policy in force; `nil` when unknown (`beacon monitor` reading another
    /// process's store: the store does not record it).
    public var policy: FlushPolicy?
    /// Events per batch at most; `nil` when unknown, as ``policy``.
    public var batchSize: Int?
    /// Bytes per batch at most.
    public var maxBatchBytes: Int
    /// Where batches go (the first destination's endpoint).
    public var endpoint: String
    /// The store's path, or a description such as `in memory`.
    public var storePath: String
    /// Whether this snapshot comes from another process's store, read-only.
    public var isReadOnlyMonitor: Bool
    /// The batch counts in ``totals`` are what a monitor reading the store saw (its batch
    /// history when it opened, and every batch since), not the engine's: no engine's
    /// status was laid over them.
    public var batchesSeenByMonitor: Bool = false
    /// At its bound the queue refuses new events (`beacon agent`'s ingest) instead of
    /// dropping its oldest: what the queue-full line says, with ``Totals/refused``.
    public var fullQueueRefusesNew: Bool = false
    /// The engine's queue says it is full (``QueueAdministration/isFull``, as `ctl status`
    /// gives it to an attached console): also without room for a post it refused, which
    /// the depth against the bounds cannot show.
    public var engineSaysQueueFull: Bool = false

    // Queue
    /// Events committed to the store and not yet delivered.
    public var depth: Int
    /// Bytes of event JSON queued.
    public var queuedBytes: Int
    /// How much the queue may hold (`nil`: not known, as for a store another process serves).
    public var queueBounds: QueueBounds? = nil
    /// When the engine a monitor was attached to stopped answering (`nil`: it answers, or
    /// none was ever attached). Its rates are then unknown.
    public var engineLostAt: Timestamp? = nil
    /// Why, when ``engineLostAt`` is set, in words the screen shows: nothing serves the
    /// store any more, or something still listens on its control socket and does not
    /// answer (a stopped or overloaded engine). `nil`: not said.
    public var engineLostReason: String? = nil
    /// Dead letters in the store now (not yet retried or purged).
    public var deadLetters: Int
    /// The newest dead letters, newest first (at most ``DeadLetterSummary/snapshotLimit``).
    public var recentDeadLetters: [DeadLetterSummary] = []
    /// Events accepted but held in memory (waiting for the next commit, or for the store
    /// to recover from a fault).
    public var buffered: Int
    /// Queue depth over time, oldest first, one sample per second.
    public var depthHistory: [Int]
    /// Depth and rates over the last ten minutes, one point per ten seconds (the
    /// console's sparklines).
    public var trend: [Trend.Point] = []
    /// Events accepted per second, over the last few seconds.
    public var rateIn: Double
    /// Events delivered per second, over the last few seconds.
    public var rateOut: Double

    // Outcomes
    /// Totals: requests, bytes, batches, retries and splits since the engine started (or,
    /// when ``batchesSeenByMonitor``, those a store's monitor saw), events over the store's
    /// life (``EngineStatusReport/Totals`` says the same).
    public var totals: Totals
    /// Flush latency percentiles over recent batches.
    public var latency: Latency
    /// Recent batches, newest first.
    public var recentBatches: [BatchRecord]
    /// Per-destination state.
    public var destinations: [DestinationStatus]
    /// A storage fault being ridden out, if any.
    public var storageProblem: StorageProblem?
    /// Why a monitor cannot read the store now (an empty file, not a store, a loop of
    /// links, gone), if it cannot; the other figures are then the last ones read, if any.
    public var unreadableStore: String? = nil
    /// The last problem worth showing (network, auth, storage), if any.
    public var lastError: String?
    /// When ``lastError`` happened, when known: an error that stands on the screen after
    /// the outage ended says how old it is.
    public var lastErrorAt: Timestamp?

    // Remote configuration
    /// Where remote configuration stands; `nil` when no ``RemoteConfigSyncer`` reports to
    /// this engine's observer.
    public var remoteConfig: RemoteConfigSummary?
    /// The names this engine accepted most events under since it started, the busiest
    /// first (at most ``eventNameLimit``; empty when the engine does not count them, as
    /// for a store another process serves), and the events the rest account for.
    public var eventNames: [EventName] = []
    public var otherEventNames: Int = 0

    /// The disk under the store (`nil`: not known, or a queue in memory), read each tick.
    public var disk: StoreDisk? = nil
    /// At the net inflow of the last seconds (arriving minus leaving, in the queue's
    /// average bytes per event): seconds until the disk is full, and until the queue's
    /// bound is reached (`nil`: not filling, or not known).
    public var diskFullInSeconds: Double? = nil
    public var boundInSeconds: Double? = nil

    /// Whether the disk is nearly full: under ``StoreDisk/lowShare`` of it free, or full
    /// within ``StoreDisk/warnAhead`` at the current inflow.
    public var isDiskLow: Bool {
        guard let disk else { return false }
        if disk.totalBytes > 0, Double(disk.freeBytes) < Double(disk.totalBytes) * StoreDisk.lowShare { return true }
        return (diskFullInSeconds ?? .infinity) < StoreDisk.warnAhead
    }

    /// Names a snapshot lists at most.
    public static let eventNameLimit = 10

    /// One name's events since the engine started.
    public struct EventName: Sendable, Hashable {
        public var name: String
        /// Events accepted under it (over by at most what its place in a bounded count
        /// inherited: ``EventNameCounts``).
        public var count: Int
        /// Events per second lately (`nil`: not measured yet).
        public var rate: Double?

        public init(name: String, count: Int, rate: Double? = nil) {
            self.name = name
            self.count = count
            self.rate = rate
        }
    }

    /// Counts since the engine started.
    public struct Totals: Sendable, Hashable {
        /// Events `track` accepted.
        public var accepted: Int = 0
        /// Events delivered (acknowledged by a destination).
        public var delivered: Int = 0
        /// Batches sent successfully.
        public var batchesSent: Int = 0
        /// Bytes of the request bodies of every batch sent, as sent (compressed when the
        /// sender compresses), whatever the answer.
        public var bytesSent: Int = 0
        /// Requests made: every batch sent, whatever the answer (a batch the enrichment
        /// filtered out whole makes none).
        public var requests: Int = 0
        /// Failed sends that will be retried.
        public var retried: Int = 0
        /// Batches split in halves.
        public var split: Int = 0
        /// Events moved to the dead-letter table.
        public var deadLettered: Int = 0
        /// Events dropped by the overflow policy.
        public var dropped: Int = 0
        /// Dead letters an operator sent back into the queue (over the store's life).
        public var deadLettersRetried: Int = 0
        /// Dead letters an operator deleted (over the store's life).
        public var deadLettersPurged: Int = 0
        /// Events refused at the queue's bound since the engine started (when
        /// ``EngineSnapshot/fullQueueRefusesNew``; they never entered the queue).
        public var refused: Int = 0

        public init(
            accepted: Int = 0, delivered: Int = 0, batchesSent: Int = 0, retried: Int = 0, split: Int = 0,
            deadLettered: Int = 0, dropped: Int = 0, deadLettersRetried: Int = 0, deadLettersPurged: Int = 0
        ) {
            self.deadLettersRetried = deadLettersRetried
            self.deadLettersPurged = deadLettersPurged
            self.accepted = accepted
            self.delivered = delivered
            self.batchesSent = batchesSent
            self.retried = retried
            self.split = split
            self.deadLettered = deadLettered
            self.dropped = dropped
        }
    }

    /// Flush latency percentiles.
    public struct Latency: Sendable, Hashable {
        public var p50: Duration?
        public var p99: Duration?
        public init(p50: Duration? = nil, p99: Duration? = nil) {
            self.p50 = p50
            self.p99 = p99
        }
    }

    public init(
        time: Timestamp = .now(), isOffline: Bool = false, policy: FlushPolicy? = nil, batchSize: Int? = nil,
        maxBatchBytes: Int = WireLimits.maxBatchBytes, endpoint: String = "", storePath: String = "",
        isReadOnlyMonitor: Bool = false, depth: Int = 0, queuedBytes: Int = 0, deadLetters: Int = 0, buffered: Int = 0,
        depthHistory: [Int] = [], rateIn: Double = 0, rateOut: Double = 0, totals: Totals = Totals(),
        latency: Latency = Latency(), recentBatches: [BatchRecord] = [], destinations: [DestinationStatus] = [],
        storageProblem: StorageProblem? = nil, lastError: String? = nil, lastErrorAt: Timestamp? = nil,
        remoteConfig: RemoteConfigSummary? = nil
    ) {
        self.time = time
        self.isOffline = isOffline
        self.policy = policy
        self.batchSize = batchSize
        self.maxBatchBytes = maxBatchBytes
        self.endpoint = endpoint
        self.storePath = storePath
        self.isReadOnlyMonitor = isReadOnlyMonitor
        self.depth = depth
        self.queuedBytes = queuedBytes
        self.deadLetters = deadLetters
        self.buffered = buffered
        self.depthHistory = depthHistory
        self.rateIn = rateIn
        self.rateOut = rateOut
        self.totals = totals
        self.latency = latency
        self.recentBatches = recentBatches
        self.destinations = destinations
        self.storageProblem = storageProblem
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.remoteConfig = remoteConfig
    }
}

extension EngineSnapshot {
    /// Records `message` as the last error, which happened `at`.
    public mutating func noteError(_ message: String, at time: Timestamp?) {
        lastError = message
        lastErrorAt = time
    }

    /// Whether the queue is at a bound (``QueueBounds/isFull(_:)``): new events push the
    /// oldest out. `false` when the bounds are not known.
    public var isQueueFull: Bool {
        engineSaysQueueFull || queueBounds?.isFull(events: depth, buffered: buffered, bytes: queuedBytes) ?? false
    }
}

/// What happened during one step of a run. Counts are the step's own (from its start to
/// the next step's start); "tracked" and "refused" count the events the step generated,
/// whenever they were posted.
public struct StepReport: Sendable, Hashable, Codable {
    /// The step's name.
    public var name: String
    /// Seconds from the run's start to the step's start, and the step's length (real time).
    public var start: Double
    public var seconds: Double
    /// What the world was like during it.
    public var condition: SimulationTimeline.Condition
    /// What happened at its start and held during it (`offline`, `burst 2000`, `kill -9`,
    /// `faults main: fail 30%`).
    public var actions: [String]
    /// Events of this step the engine acknowledged, and the ones it did not.
    public var tracked: Int
    public var refused: Int
    /// Events newly stored at the collectors during the step, summed over collectors.
    public var delivered: Int
    /// The deepest queue sampled during the step (`nil`: the engine never answered).
    public var maxDepth: Int?
    /// The longest a pending event had waited, at any sample of the step, in seconds.
    public var oldestPendingSeconds: Double?
    /// Engine counts during the step: failed sends retried, batches split, events
    /// dead-lettered, requests made and their bytes.
    public var retries: Int
    public var splits: Int
    public var deadLetters: Int
    public var requests: Int
    public var bytesSent: Int
    /// For a step that ends an outage: seconds from its start until every event tracked
    /// before it had left the queue (`nil`: not a recovery, or not drained by the run's end).
    public var drainSeconds: Double?
    /// Where the engine's real-time timers (flush interval, backoff, `Retry-After`) are long
    /// against the step's wall time under the run's time scale: ``RealTimeTimers``.
    public var realTimeWarnings: [String]

    public init(
        name: String, start: Double, seconds: Double, condition: SimulationTimeline.Condition, actions: [String],
        tracked: Int = 0, refused: Int = 0, delivered: Int = 0, maxDepth: Int? = nil,
        oldestPendingSeconds: Double? = nil, retries: Int = 0, splits: Int = 0, deadLetters: Int = 0,
        requests: Int = 0, bytesSent: Int = 0, drainSeconds: Double? = nil, realTimeWarnings: [String] = []
    ) {
        self.name = name
        self.start = start
        self.seconds = seconds
        self.condition = condition
        self.actions = actions
        self.tracked = tracked
        self.refused = refused
        self.delivered = delivered
        self.maxDepth = maxDepth
        self.oldestPendingSeconds = oldestPendingSeconds
        self.retries = retries
        self.splits = splits
        self.deadLetters = deadLetters
        self.requests = requests
        self.bytesSent = bytesSent
        self.drainSeconds = drainSeconds
        self.realTimeWarnings = realTimeWarnings
    }
}

import BeaconWire

/// What an engine and its operators ask of a queue beside the log: where it is, its
/// bounds and counts, recorded pauses, ages, destinations removed, other processes'
/// commits. Part of ``EventQueue``.
public protocol QueueAdministration: AnyObject, Sendable {
    /// Where the queue lives, for the dashboard (`/var/lib/app/beacon.sqlite`, `in memory`).
    var location: String { get }

    /// Current counts (cheap; no I/O).
    var depth: QueueDepth { get }

    /// How much the queue may hold (`nil`: unbounded, or not known).
    var bounds: QueueBounds? { get }

    /// Whether the queue is full: at a bound, or (for a queue whose writers are refused
    /// at it, ``SQLiteEventQueue/admits(events:bytes:)``) without room for the last write
    /// it refused. The one fact `/health`, `ctl status`, `/metrics` and the console read.
    var isFull: Bool { get }

    /// Forgets a destination (idempotent): its progress, counters and recorded pause go,
    /// and the events every remaining destination is done with leave the queue. Its dead
    /// letters stay.
    /// Use it when a destination is removed for good; events are kept for every
    /// registered destination, running or not.
    func unregister(destination: String) async throws(StorageError)

    /// Records that an operator paused `destination` (`true`) or lifted the pause
    /// (`false`), so that an engine started later on this queue starts it paused.
    func recordPause(_ paused: Bool, destination: String) async throws(StorageError)

    /// The destinations an operator paused and has not resumed, as recorded by
    /// ``recordPause(_:destination:)``.
    func pausedDestinations() async throws(StorageError) -> Set<String>

    /// Keeps an operator's command in the store (the newest ``OperatorAction/kept``), for
    /// `beacon ctl log` and the console's log view.
    func recordOperatorAction(_ action: OperatorAction) async throws(StorageError)

    /// When the oldest event each registered destination is not done with was committed
    /// (destinations with nothing pending are left out). Cheap: one indexed read per
    /// destination, at the head of the queue.
    func oldestPending() async throws(StorageError) -> [String: Timestamp]

    /// Looks for events that other processes committed to the same store (a
    /// `beacon track` beside a running agent): when there are, takes the store's counters
    /// and publishes the commit (``QueueEvent/committed(count:depth:)``), so that the
    /// batchers see them. Returns how many it found. Cheap when there are none.
    func refreshFromOtherProcesses() async -> Int
}

extension QueueAdministration {
    /// Queues that do not implement it keep no pauses: nothing outlives the engine.
    public func recordPause(_ paused: Bool, destination: String) async throws(StorageError) {}

    public func pausedDestinations() async throws(StorageError) -> Set<String> { [] }

    /// Queues that do not implement it keep no log: the engine's logger has each command.
    public func recordOperatorAction(_ action: OperatorAction) async throws(StorageError) {}

    public var bounds: QueueBounds? { nil }

    /// At a bound (``QueueBounds/isFull(_:)``); `false` when unbounded.
    public var isFull: Bool { bounds?.isFull(depth) ?? false }

    /// Queues that no other process writes: nothing to find.
    public func refreshFromOtherProcesses() async -> Int { 0 }

    /// Queues that do not implement it know no ages.
    public func oldestPending() async throws(StorageError) -> [String: Timestamp] { [:] }
}

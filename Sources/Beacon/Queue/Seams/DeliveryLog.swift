import BeaconWire

/// The log a ``Batcher`` reads and settles: each destination's progress through the
/// queue, and the queue's facts. Part of ``EventQueue``.
///
/// Each destination reads with ``peek(for:after:limit:maxBytes:)`` the oldest events it
/// is not done with, and settles each batch with ``settle(_:)``, in one transaction. An
/// event leaves the queue once every registered destination is done with it (delivered
/// it, dead-lettered it, or filtered it out). A destination registered later starts with
/// every event queued at that moment.
public protocol DeliveryLog: AnyObject, Sendable {
    /// Registers a destination (idempotent): from now on events stay queued until it is
    /// done with them. `peek` and `settle` register unknown destinations themselves.
    func register(destination: String) async throws(StorageError)

    /// Reads the oldest events `destination` is not done with, after sequence `after`
    /// when given: at most `limit` events and `maxBytes` of payload (but always at least
    /// one event when any is left). The events stay queued, leased to the destination:
    /// the overflow policy will not drop them until they are settled or released.
    func peek(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent]

    /// Settles a finished batch of `settlement.record.destination` in one transaction:
    /// marks delivered, filtered and dead-lettered events done for it (removing those every
    /// destination is done with), stores the dead letters, appends the record to the
    /// history, and releases the destination's lease through `settlement.through`.
    func settle(_ settlement: BatchSettlement) async throws(StorageError)

    /// Releases every lease of `destination` (a batch read ahead and then not sent).
    func releaseLeases(for destination: String)

    /// Current counts (cheap; no I/O).
    var depth: QueueDepth { get }

    /// A new batch id, greater than any in the store's history.
    func makeBatchID() -> Int64

    /// The queue's facts from now on (commits, drops, settles, storage faults and
    /// recovery, dead-letter changes), in order, each once: ``QueueFacts``. Each call is
    /// a subscription of its own, for one reader.
    func facts(wake: QueueFacts.Wake) -> QueueFacts

    /// Returns when everything appended before this call is committed or dropped.
    func waitForPendingWrites() async
}

extension DeliveryLog {
    /// The queue's facts from now on, waking the reader for each (``QueueFacts/Wake/always``).
    public func facts() -> QueueFacts { facts(wake: .always) }

    /// The head of the queue for the destination named `default`.
    public func peek(limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        try await peek(for: Destination.defaultName, after: nil, limit: limit, maxBytes: maxBytes)
    }
}

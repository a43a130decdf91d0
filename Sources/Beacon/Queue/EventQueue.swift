import BeaconWire

/// Durable storage of events between `track` and delivery: the seam between the tracker,
/// the batchers and the store. Beacon ships ``SQLiteEventQueue`` and ``InMemoryEventQueue``.
///
/// `append` never waits on a commit: implementations group-commit in the background and
/// report through their listeners.
///
/// **Destinations.** Each destination has its own progress through the queue: its
/// batcher reads with `peek(for:after:limit:maxBytes:)` the oldest events it is not done
/// with, and settles each batch with `settle`, in one transaction. An event leaves the
/// queue once every registered destination is done with it (delivered it, dead-lettered
/// it, or filtered it out). A destination registered later starts with every event
/// queued at that moment.
public protocol EventQueue: AnyObject, DeadLetterReading {
    /// Where the queue lives, for the dashboard (`/var/lib/app/beacon.sqlite`, `in memory`).
    var location: String { get }

    /// Accepts an encoded event. Returns at once with a ticket to wait on, except when the
    /// memory buffer is full while the store is healthy (then it waits for one commit).
    func append(_ event: PendingEvent) -> CommitTicket

    /// ``append(_:)`` for a task: where `append` would wait for room, this suspends
    /// instead of holding its thread. The default appends at once.
    func appendSuspending(_ event: PendingEvent) async -> CommitTicket

    /// ``appendSuspending(_:)`` for several events, in order, in as few steps as the room
    /// allows. The default appends them one by one.
    func appendSuspending(contentsOf events: [PendingEvent]) async -> [CommitTicket]

    /// Returns when the event holding this ticket is committed; throws if it was dropped.
    func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError)

    /// Returns when everything appended before this call is committed or dropped. On a
    /// store that keeps failing this can take forever: prefer
    /// ``waitForPendingWrites(timeout:)`` where a caller must not hang.
    func waitForPendingWrites() async

    /// Waits at most `timeout` for the event holding `ticket` to be committed.
    func waitForCommit(_ ticket: CommitTicket, timeout: Duration) async -> CommitWaitResult

    /// Waits at most `timeout` for everything appended before this call to be committed
    /// or dropped; returns `false` if the time ran out first.
    func waitForPendingWrites(timeout: Duration) async -> Bool

    /// Registers a destination (idempotent): from now on events stay queued until it is
    /// done with them. `peek` and `settle` register unknown destinations themselves.
    func register(destination: String) async throws(StorageError)

    /// Forgets a destination (idempotent): its progress, counters and recorded pause go,
    /// and the events every remaining destination is done with leave the queue. Its dead
    /// letters stay.
    /// Use it when a destination is removed for good; events are kept for every
    /// registered destination, running or not.
    func unregister(destination: String) async throws(StorageError)

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

    /// How much the queue may hold (`nil`: unbounded, or not known).
    var bounds: QueueBounds? { get }

    /// A new batch id, greater than any in the store's history.
    func makeBatchID() -> Int64

    /// Dead letters, newest first.
    func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter]

    /// Dead letters whose id is above `afterID`, oldest first, at most `limit`: to page
    /// through all of them (an export).
    func deadLetters(afterID: Int64, limit: Int) async throws(StorageError) -> [DeadLetter]

    /// The dead letter with this id, if the store has it.
    func deadLetter(id: Int64) async throws(StorageError) -> DeadLetter?

    /// Sends the selected dead letters back into the queue, each for its own destination
    /// only (the others are done with it), in one transaction that also deletes them from
    /// the dead-letter table: each is queued once, however often this is called. A letter
    /// whose destination is not registered is refused and kept. When an id asked for is
    /// not in the store, nothing changes and the change lists it in `missing`.
    func retryDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange

    /// Deletes the selected dead letters, counted in ``QueueTotals/deadLettersPurged``;
    /// as ``retryDeadLetters(_:)``, a missing id changes nothing.
    func purgeDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange

    /// Records that an operator paused `destination` (`true`) or lifted the pause
    /// (`false`), so that an engine started later on this queue starts it paused.
    func recordPause(_ paused: Bool, destination: String) async throws(StorageError)

    /// The destinations an operator paused and has not resumed, as recorded by
    /// ``recordPause(_:destination:)``.
    func pausedDestinations() async throws(StorageError) -> Set<String>

    /// When the oldest event each registered destination is not done with was committed
    /// (destinations with nothing pending are left out). Cheap: one indexed read per
    /// destination, at the head of the queue.
    func oldestPending() async throws(StorageError) -> [String: Timestamp]

    /// The queue's facts from now on (commits, drops, settles, storage faults and
    /// recovery, dead-letter changes), in order, each once: ``QueueFacts``. Each call is
    /// a subscription of its own, for one reader.
    func facts(wake: QueueFacts.Wake) -> QueueFacts

    /// Looks for events that other processes committed to the same store (a
    /// `beacon track` beside a running agent): when there are, takes the store's counters
    /// and publishes the commit (``QueueEvent/committed(count:depth:)``), so that the
    /// batchers see them. Returns how many it found. Cheap when there are none.
    func refreshFromOtherProcesses() async -> Int
}

extension EventQueue {
    /// The queue's facts from now on, waking the reader for each (``QueueFacts/Wake/always``).
    public func facts() -> QueueFacts { facts(wake: .always) }

    /// Queues that never wait for room append at once.
    public func appendSuspending(_ event: PendingEvent) async -> CommitTicket { append(event) }

    public func appendSuspending(contentsOf events: [PendingEvent]) async -> [CommitTicket] {
        var tickets: [CommitTicket] = []
        for event in events { tickets.append(await appendSuspending(event)) }
        return tickets
    }

    /// For queues that keep no dead-letter ids: pages through ``deadLetters(limit:)``.
    public func deadLetters(afterID: Int64, limit: Int) async throws(StorageError) -> [DeadLetter] {
        Array(try await deadLetters(limit: .max).reversed().filter { $0.id > afterID }.prefix(max(0, limit)))
    }

    public func deadLetter(id: Int64) async throws(StorageError) -> DeadLetter? {
        try await deadLetters(limit: .max).first { $0.id == id }
    }

    /// For queues that keep no index: filters ``deadLetters(limit:)``.
    public func deadLetters(matching query: DeadLetterQuery, limit: Int) async throws(StorageError) -> DeadLetterPage {
        let found = try await deadLetters(limit: .max).filter(query.matches)
        return DeadLetterPage(letters: Array(found.prefix(max(0, limit))), total: found.count)
    }

    /// Queues that do not implement it refuse with a storage error that says so.
    public func retryDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        throw StorageError(kind: .other, message: "\(location) cannot retry dead letters (\(type(of: self)) does not implement it)")
    }

    public func purgeDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        throw StorageError(kind: .other, message: "\(location) cannot purge dead letters (\(type(of: self)) does not implement it)")
    }

    /// From the counts in memory.
    public func deadLetterCount() async throws(StorageError) -> Int { depth.deadLetters }

    /// Queues that do not implement it keep no pauses: nothing outlives the engine.
    public func recordPause(_ paused: Bool, destination: String) async throws(StorageError) {}

    public func pausedDestinations() async throws(StorageError) -> Set<String> { [] }

    public var bounds: QueueBounds? { nil }

    /// Queues that no other process writes: nothing to find.
    public func refreshFromOtherProcesses() async -> Int { 0 }

    /// Queues that do not implement it know no ages.
    public func oldestPending() async throws(StorageError) -> [String: Timestamp] { [:] }

    /// A generic bound for queues that do not implement one: races the unbounded wait
    /// against a timer (the unbounded wait is left running in the background).
    public func waitForCommit(_ ticket: CommitTicket, timeout: Duration) async -> CommitWaitResult {
        await Self.race(timeout: timeout) { () async -> CommitWaitResult in
            do {
                try await self.waitForCommit(ticket)
                return .committed
            } catch {
                return .dropped  // its only error: the event was dropped before its commit
            }
        } ?? .timedOut
    }

    public func waitForPendingWrites(timeout: Duration) async -> Bool {
        await Self.race(timeout: timeout) { () async -> Bool in
            await self.waitForPendingWrites()
            return true
        } ?? false
    }

    /// `body`'s value, or `nil` after `timeout`. Two unstructured tasks, not a task group:
    /// a group would wait for `body` at the deadline, and what it waits on (a commit's
    /// ticket, the writer's drain) does not end when cancelled; the caller is owed an answer
    /// at the deadline, and `body` ends on its own when the commit lands or drops.
    private static func race<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
        let (stream, continuation) = AsyncStream.makeStream(of: T?.self)
        let work = Task {
            continuation.yield(await body())
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)  // cancelled once the work won: its nil is never read
            continuation.yield(nil)
        }
        defer { timer.cancel() }
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next() ?? nil
        if first == nil { work.cancel() }
        continuation.finish()
        return first
    }

    /// The head of the queue for the destination named `default`.
    public func peek(limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        try await peek(for: Destination.defaultName, after: nil, limit: limit, maxBytes: maxBytes)
    }
}

import BeaconWire

/// Where ``Tracker`` hands its events: append without waiting on a commit, and wait for
/// one when asked. Part of ``EventQueue``; `append` never waits on a commit:
/// implementations group-commit in the background and publish each commit
/// (``DeliveryLog/facts(wake:)``).
public protocol EventAppender: AnyObject, Sendable {
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
}

extension EventAppender {
    /// Queues that never wait for room append at once.
    public func appendSuspending(_ event: PendingEvent) async -> CommitTicket { append(event) }

    public func appendSuspending(contentsOf events: [PendingEvent]) async -> [CommitTicket] {
        var tickets: [CommitTicket] = []
        for event in events { tickets.append(await appendSuspending(event)) }
        return tickets
    }

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
}

import BeaconWire
import DequeModule
import Dispatch
import Foundation

/// The memory side of a queue: events accepted by `append` wait here until a background
/// writer commits them, many per transaction (group commit).
///
/// - The writer runs on its own serial dispatch queue, never on Swift's cooperative pool.
///   It starts as soon as an event arrives and takes everything buffered (up to
///   `maxGroup`), so an event waits at most about two transactions.
/// - It holds at most `capacity` events and `capacityBytes` bytes (``PendingEvent/memoryCost``),
///   whichever comes first; an event larger than `capacityBytes` alone is still taken.
/// - When the store fails, events stay here, the writer retries with backoff, and the
///   fault is reported. If the buffer fills while the store is failing, the oldest
///   buffered event is dropped and counted. While the store is healthy, a full buffer
///   makes `append` wait for the next commit instead (backpressure, never loss; a task
///   calls ``appendSuspending(_:)``, which suspends rather than holding its thread), but at
///   most `maxAppendWait`: a commit that hangs (a dead disk, a stuck network filesystem)
///   must not hang the caller, so past that the oldest event is dropped and counted.
/// - Waits for a commit can be bounded (`waitForCommit(_:until:)`,
///   `waitForCommit(_:progressTimeout:)`): they end with `.timedOut` instead of hanging
///   on a store that keeps failing.
///
/// Everything it learns goes to its ``GroupCommitWriter``, given at `init`: the commits,
/// and one ``Report`` per thing that happened to the events, in order.
///
/// Thread safety: every mutable field is guarded by `condition`; `@unchecked Sendable`
/// is sound because nothing is read or written outside `condition.lock()`, and the
/// constants (configuration, writer, thread) are set once in `init`.
final class GroupCommitBuffer: @unchecked Sendable {
    /// The buffer's counts when something happened.
    struct Counts: Sendable, Hashable {
        /// Events in memory, the group being committed included.
        var buffered: Int
        /// Events ever appended.
        var accepted: Int
    }

    /// What happened to the buffer's events, reported to its writer in order, each with
    /// the counts right after it.
    enum Report: Sendable {
        /// A group of `count` events was committed.
        case committed(count: Int, Counts)
        /// The oldest `count` buffered events were dropped (the store failing or stuck, the
        /// buffer full). Reported on the thread that dropped them: the writer's, or the
        /// `append` caller's (the writer may be the one that is stuck).
        case dropped(count: Int, Counts)
        /// A commit failed and its events wait for the retry; `changed` when this is the
        /// first failure of a run or a new kind of failure.
        case failed(StorageError, Counts, changed: Bool)
        /// A commit worked after failures (reported before that commit's `committed`).
        case recovered(Counts)
    }

    struct Configuration: Sendable {
        /// Events held in memory at most, the group being committed included. Default 10,000.
        var capacity = 10_000
        /// Bytes held in memory at most (``PendingEvent/memoryCost``), the group being
        /// committed included. Default 1 MiB: about 2,000 events of 330 bytes of JSON.
        var capacityBytes = 1 << 20
        /// Events per transaction at most. Default 1,000.
        var maxGroup = 1_000
        /// First retry delay after a failed commit.
        var initialRetryDelay: Duration = .milliseconds(50)
        /// Longest retry delay.
        var maxRetryDelay: Duration = .seconds(2)
        /// Longest time `append` waits for room while the store is healthy but a commit
        /// has not finished; past it the oldest buffered event is dropped.
        var maxAppendWait: Duration = .seconds(1)
    }

    typealias WaitResult = CommitWaitResult

    private let configuration: Configuration
    /// The serial queue the commits run on.
    private let thread: DispatchQueue
    private let writer: any GroupCommitWriter
    private let condition = NSCondition()

    /// An event with its ticket. Tickets in `entries` ascend but need not be contiguous:
    /// a failed group goes back in front of events whose neighbours were dropped while it
    /// was being written.
    private struct Entry {
        var ticket: UInt64
        var event: PendingEvent
    }

    private var entries = Deque<Entry>()
    /// Empty room as large as the last group written, for `entries` to take when the
    /// writer swaps its events out: callers append into room already there instead of
    /// regrowing `entries` from nothing after every group, where each doubling copied
    /// the buffer on a caller's `track`. Made by the writer, outside the lock.
    private var spare = Deque<Entry>()
    private var nextTicket: UInt64 = 1
    private var settledThrough: UInt64 = 0
    /// Tickets dropped, as runs: the newest ``maxDroppedRuns``.
    private var droppedRanges: [ClosedRange<UInt64>] = []
    /// Tickets at or below it that are not in `droppedRanges` may have been dropped in a
    /// run forgotten since: their outcome reads as dropped, never as committed (a caller
    /// told "dropped" sends again; one told "committed" would trust a lost event).
    private var forgottenDropsThrough: UInt64 = 0
    /// Runs of dropped tickets remembered.
    static let maxDroppedRuns = 1_024
    private var waiters: [(id: Int, ticket: UInt64, continuation: CheckedContinuation<WaitResult, Never>)] = []
    /// Tasks suspended in ``appendSuspending(_:)`` until there is room.
    private var roomWaiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var waiterCounter = 0
    private var writing = false
    /// Events of the group being committed: they count against `capacity` too, so that
    /// at most `capacity` events are held in memory, not `capacity + maxGroup`.
    private var committing = 0
    /// ``PendingEvent/memoryCost`` of `entries`, and of the group being committed.
    private var bufferedBytes = 0
    private var committingBytes = 0
    private var failure: StorageError?
    /// Set when `append` gave up waiting for room: the commit under way is stuck, so
    /// later appends drop at once instead of each waiting again. Cleared by the next
    /// commit that ends.
    private var stalled = false
    /// When the last commit succeeded (nil: none yet).
    private var lastCommit: ContinuousClock.Instant?
    private var retryDelay: Duration
    private var closed = false

    init(configuration: Configuration, label: String, writer: any GroupCommitWriter) {
        self.configuration = configuration
        self.thread = DispatchQueue(label: label)
        self.writer = writer
        self.retryDelay = configuration.initialRetryDelay
    }

    /// Events accepted and not yet committed (including the group being written).
    var bufferedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count + committing
    }

    /// Tasks suspended in ``appendSuspending(_:)`` waiting for room. For tests.
    var tasksWaitingForRoom: Int {
        condition.lock()
        defer { condition.unlock() }
        return roomWaiters.count
    }

    /// Events accepted since the buffer was made.
    var acceptedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return Int(nextTicket - 1)
    }

    /// The current failure, if the last commit failed, and when a commit last succeeded.
    var health: (failure: StorageError?, lastCommit: ContinuousClock.Instant?) {
        condition.lock()
        defer { condition.unlock() }
        return (failure, lastCommit)
    }

    /// Adds an event; see the type's documentation for when this waits. It waits on a
    /// condition, holding its thread: from a task, use ``appendSuspending(_:)``.
    func append(_ event: PendingEvent) -> CommitTicket {
        let cost = event.memoryCost
        condition.lock()
        if mustWaitForRoom(cost) {
            // Only when full: the common path reads no clock.
            let limit = Date(timeIntervalSinceNow: configuration.maxAppendWait.inSeconds)
            while isFull(adding: cost), failure == nil, !closed {
                if !condition.wait(until: limit) {
                    stalled = true  // the writer is stuck: drop below instead of hanging
                    break
                }
            }
        }
        return insertUnlocking(event, cost: cost)
    }

    /// ``append(_:)`` for a task: while the buffer is full and the store healthy, it
    /// suspends (its thread goes on with other tasks) until a commit makes room, at most
    /// ``Configuration/maxAppendWait``; past that, or when the task is cancelled, it
    /// goes on as `append` does then (the oldest buffered event makes room).
    func appendSuspending(_ event: PendingEvent) async -> CommitTicket {
        var deadline: ContinuousClock.Instant?
        while true {
            switch appendOrWait(event, deadline: &deadline, cancelled: Task.isCancelled) {
            case .appended(let ticket): return ticket
            case .wait(let end): await waitForRoom(for: event.memoryCost, until: end)
            }
        }
    }

    /// What ``appendSuspending(_:)`` does next.
    private enum AppendStep {
        case appended(CommitTicket)
        case wait(until: ContinuousClock.Instant)
    }

    /// Appends `event` unless it must wait for room; the wait ends at `deadline`, set on
    /// the first wait.
    private func appendOrWait(_ event: PendingEvent, deadline: inout ContinuousClock.Instant?, cancelled: Bool) -> AppendStep {
        let cost = event.memoryCost
        condition.lock()
        guard mustWaitForRoom(cost), !cancelled else { return .appended(insertUnlocking(event, cost: cost)) }
        // Only when full: the common path reads no clock.
        let end = deadline ?? .now + configuration.maxAppendWait
        deadline = end
        guard ContinuousClock.now < end else {
            stalled = true  // the writer is stuck: drop instead of waiting again
            return .appended(insertUnlocking(event, cost: cost))
        }
        condition.unlock()
        return .wait(until: end)
    }

    /// Suspends until the writer makes room (for an event costing `cost`, or ends a
    /// commit) or fails, `deadline` passes, or the task is cancelled (whichever comes first).
    private func waitForRoom(for cost: Int, until deadline: ContinuousClock.Instant) async {
        let id = nextWaiterID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                condition.lock()
                // Room may have come between the caller's look and this one.
                guard isFull(adding: cost), failure == nil, !closed, !Task.isCancelled else {
                    condition.unlock()
                    return continuation.resume()
                }
                roomWaiters.append((id, continuation))
                condition.unlock()
                let left = deadline - .now
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: max(left, .zero).inNanoseconds))) {
                    self.resumeRoomWaiter(id)
                }
            }
        } onCancel: {
            resumeRoomWaiter(id)
        }
    }

    private func resumeRoomWaiter(_ id: Int) {
        condition.lock()
        let index = roomWaiters.firstIndex { $0.id == id }
        let waiter = index.map { roomWaiters.remove(at: $0) }
        condition.unlock()
        waiter?.continuation.resume()
    }

    /// With the lock held: every task waiting for room, taken out to be resumed after the unlock.
    private func takeRoomWaiters() -> [CheckedContinuation<Void, Never>] {
        guard !roomWaiters.isEmpty else { return [] }
        defer { roomWaiters.removeAll() }
        return roomWaiters.map(\.continuation)
    }

    /// With the lock held: whether an event costing `cost` waits for room before it goes in.
    private func mustWaitForRoom(_ cost: Int) -> Bool {
        isFull(adding: cost) && failure == nil && !stalled && !closed
    }

    /// Puts `event` in, pushing the oldest out while the buffer is over its bounds, starts
    /// the writer if idle; called with the lock held, and releases it.
    private func insertUnlocking(_ event: PendingEvent, cost: Int) -> CommitTicket {
        let dropped = makeRoom(for: cost)
        let ticket = insertLocked(event, cost: cost)
        finishInsertsUnlocking(dropped: dropped)
        return ticket
    }

    /// With the lock held: pushes the oldest buffered events out while one costing `cost`
    /// would not fit; returns how many went.
    private func makeRoom(for cost: Int) -> Int {
        var dropped = 0
        while !entries.isEmpty, entries.count >= configuration.capacity || bufferedBytes + cost > configuration.capacityBytes {
            dropOldest()
            dropped += 1
        }
        return dropped
    }

    /// With the lock held: puts `event` in and returns its ticket.
    private func insertLocked(_ event: PendingEvent, cost: Int) -> CommitTicket {
        let ticket = nextTicket
        nextTicket += 1
        entries.append(Entry(ticket: ticket, event: event))
        bufferedBytes += cost
        return CommitTicket(rawValue: ticket)
    }

    /// After inserts, with the lock held: starts the writer if idle, releases the lock,
    /// then settles the waiters of dropped events and reports the drops.
    private func finishInsertsUnlocking(dropped: Int) {
        let start = !writing && failure == nil && !closed && !entries.isEmpty
        if start { writing = true }
        let ready = dropped > 0 ? takeSettledWaiters() : []
        let counts = currentCounts()
        condition.unlock()
        for waiter in ready { waiter.continuation.resume(returning: waiter.committed) }
        // On the caller's thread, not the writer's: the writer may be the one that is stuck.
        if dropped > 0 { writer.bufferReported(.dropped(count: dropped, counts)) }
        if start { thread.async { self.drain() } }
    }

    /// ``appendSuspending(_:)`` for several events, in order: as many go in at once as
    /// there is room for, under one lock, and the task suspends only when the buffer is
    /// full (a request of 500 events waits a few times, not once per event).
    func appendSuspending(contentsOf events: [PendingEvent]) async -> [CommitTicket] {
        var tickets: [CommitTicket] = []
        tickets.reserveCapacity(events.count)
        var deadline: ContinuousClock.Instant?
        while tickets.count < events.count {
            if let end = appendWhileRoom(events, into: &tickets, deadline: &deadline, cancelled: Task.isCancelled) {
                await waitForRoom(for: events[tickets.count].memoryCost, until: end)
            }
        }
        return tickets
    }

    /// Appends the events after those in `tickets` while there is room (each as `append`
    /// would once waiting is over: past `deadline`, on a failing store, when cancelled);
    /// returns until when to wait when it stopped for room.
    private func appendWhileRoom(
        _ events: [PendingEvent], into tickets: inout [CommitTicket], deadline: inout ContinuousClock.Instant?, cancelled: Bool
    ) -> ContinuousClock.Instant? {
        condition.lock()
        var dropped = 0
        var waitUntil: ContinuousClock.Instant?
        while tickets.count < events.count {
            let event = events[tickets.count]
            let cost = event.memoryCost
            if mustWaitForRoom(cost), !cancelled {
                // Only when full: the common path reads no clock.
                let end = deadline ?? .now + configuration.maxAppendWait
                deadline = end
                if ContinuousClock.now < end {
                    waitUntil = end
                    break
                }
                stalled = true  // the writer is stuck: drop instead of waiting again
            }
            dropped += makeRoom(for: cost)
            tickets.append(insertLocked(event, cost: cost))
        }
        finishInsertsUnlocking(dropped: dropped)
        return waitUntil
    }

    /// Waits until the ticket is settled; returns `false` if its event was dropped, or if
    /// the waiting task was cancelled first.
    func waitForCommit(_ ticket: CommitTicket) async -> Bool {
        await waitForCommit(ticket, until: nil) == .committed
    }

    /// Waits until the ticket is settled or `deadline` passes (never, when nil).
    func waitForCommit(_ ticket: CommitTicket, until deadline: ContinuousClock.Instant?) async -> WaitResult {
        let id = nextWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                condition.lock()
                if let committed = outcome(of: ticket.rawValue) {
                    condition.unlock()
                    continuation.resume(returning: committed ? .committed : .dropped)
                    return
                }
                if Task.isCancelled {
                    condition.unlock()
                    continuation.resume(returning: .timedOut)
                    return
                }
                if let deadline {
                    let left = deadline - .now
                    guard left > .zero else {
                        condition.unlock()
                        continuation.resume(returning: .timedOut)
                        return
                    }
                    // Not on the writer queue: a commit that hangs must not hold the deadline up.
                    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: left.inNanoseconds))) {
                        self.resumeWaiter(id, with: .timedOut)
                    }
                }
                waiters.append((id, ticket.rawValue, continuation))
                condition.unlock()
            }
        } onCancel: {
            resumeWaiter(id, with: .timedOut)
        }
    }

    /// Waits until the ticket is settled, or until no commit has succeeded for
    /// `progressTimeout` (counted from the later of the last commit and the start of the
    /// wait): a slow but working store is waited for, a stalled or failing one is not.
    func waitForCommit(_ ticket: CommitTicket, progressTimeout: Duration) async -> WaitResult {
        let start = ContinuousClock.now
        while true {
            let progress = health.lastCommit.map { max($0, start) } ?? start
            let deadline = progress + progressTimeout
            guard deadline > .now else { return .timedOut }
            let result = await waitForCommit(ticket, until: deadline)
            if result != .timedOut || Task.isCancelled { return result }
        }
    }

    /// `.committed` or `.dropped` once the ticket is settled, nil before.
    func settledOutcome(of ticket: CommitTicket) -> WaitResult? {
        condition.lock()
        defer { condition.unlock() }
        return outcome(of: ticket.rawValue).map { $0 ? .committed : .dropped }
    }

    private func resumeWaiter(_ id: Int, with result: WaitResult) {
        condition.lock()
        let index = waiters.firstIndex { $0.id == id }
        let waiter = index.map { waiters.remove(at: $0) }
        condition.unlock()
        waiter?.continuation.resume(returning: result)
    }

    private func nextWaiterID() -> Int {
        condition.lock()
        defer { condition.unlock() }
        waiterCounter += 1
        return waiterCounter
    }

    /// Waits until everything appended so far is settled.
    func waitForPendingWrites() async {
        let last = lastTicket()
        guard last > 0 else { return }
        _ = await waitForCommit(CommitTicket(rawValue: last))
    }

    /// The last ticket handed out (0 when none).
    var lastTicketIssued: CommitTicket { CommitTicket(rawValue: lastTicket()) }

    private func lastTicket() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return nextTicket - 1
    }

    /// Stops accepting background work; pending waiters are told their events were not
    /// stored. Events still buffered are returned (the caller decides what to do).
    func close() -> [PendingEvent] {
        condition.lock()
        closed = true
        let left = entries.map(\.event)
        entries.removeAll()
        bufferedBytes = 0
        let pending = waiters
        waiters.removeAll()
        condition.broadcast()
        let rooms = takeRoomWaiters()
        condition.unlock()
        for waiter in pending { waiter.continuation.resume(returning: .dropped) }
        for room in rooms { room.resume() }
        return left
    }

    // MARK: - Writer

    private func drain() {
        while true {
            condition.lock()
            if closed || entries.isEmpty {
                writing = false
                condition.unlock()
                return
            }
            let count = min(entries.count, configuration.maxGroup)
            var taken = Deque<Entry>()
            let takenBytes: Int
            if count == entries.count {
                swap(&taken, &entries)  // O(1) under the lock: producers are never held up by a copy
                swap(&entries, &spare)
                takenBytes = bufferedBytes
            } else {
                taken.append(contentsOf: entries.prefix(count))
                entries.removeFirst(count)
                takenBytes = taken.reduce(0) { $0 + $1.event.memoryCost }
            }
            bufferedBytes -= takenBytes
            committing = count
            committingBytes = takenBytes
            condition.unlock()
            let group = taken.map(\.event)
            let lastTicket = taken.last?.ticket ?? 0

            if let error = writer.commit(group) {
                fail(taken: taken, error: error)
                return
            }

            // Outside the lock: room for the next group, as large as this one.
            var room = Deque<Entry>()
            room.reserveCapacity(group.count)

            condition.lock()
            swap(&spare, &room)  // the old room is freed after the unlock
            committing = 0
            committingBytes = 0
            condition.broadcast()  // room for producers waiting on a full buffer
            let recovered = failure != nil
            failure = nil
            stalled = false
            lastCommit = .now
            retryDelay = configuration.initialRetryDelay
            // Every ticket up to the group's last is now committed or dropped: the events
            // between the group's were dropped while it was written, and recorded so.
            settledThrough = lastTicket
            let ready = takeSettledWaiters()
            let rooms = takeRoomWaiters()
            let counts = currentCounts()
            condition.unlock()
            // Before the waiters: they may read what the reports change.
            if recovered { writer.bufferReported(.recovered(counts)) }
            writer.bufferReported(.committed(count: group.count, counts))
            for waiter in ready { waiter.continuation.resume(returning: waiter.committed) }
            for room in rooms { room.resume() }
        }
    }

    private func fail(taken: Deque<Entry>, error: StorageError) {
        condition.lock()
        committing = 0
        entries.insert(contentsOf: taken, at: 0)
        bufferedBytes += committingBytes
        committingBytes = 0
        var dropped = 0
        while entries.count > configuration.capacity || (entries.count > 1 && bufferedBytes > configuration.capacityBytes) {
            dropOldest()
            dropped += 1
        }
        let changed = failure?.kind != error.kind
        failure = error
        stalled = false
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, configuration.maxRetryDelay)
        let counts = currentCounts()
        let ready = takeSettledWaiters()
        condition.broadcast()  // producers waiting for room now drop the oldest instead
        let rooms = takeRoomWaiters()
        condition.unlock()
        for waiter in ready { waiter.continuation.resume(returning: waiter.committed) }
        for room in rooms { room.resume() }
        writer.bufferReported(.failed(error, counts, changed: changed))
        if dropped > 0 { writer.bufferReported(.dropped(count: dropped, counts)) }
        thread.asyncAfter(deadline: .now() + .nanoseconds(Int(truncatingIfNeeded: delay.inNanoseconds))) { self.drain() }
    }

    // MARK: - Bookkeeping (call with the lock held)

    private func currentCounts() -> Counts {
        Counts(buffered: entries.count + committing, accepted: Int(nextTicket - 1))
    }

    /// Whether an event costing `cost` must wait for room (or push the oldest out). One
    /// event always fits an empty buffer, however large.
    private func isFull(adding cost: Int) -> Bool {
        if entries.count + committing >= configuration.capacity { return true }
        return entries.count + committing > 0 && bufferedBytes + committingBytes + cost > configuration.capacityBytes
    }

    /// Drops the oldest buffered event (not one being committed).
    private func dropOldest() {
        let oldest = entries.removeFirst()
        bufferedBytes -= oldest.event.memoryCost
        markDropped(oldest.ticket)
    }

    /// `true` committed, `false` dropped, `nil` not settled yet.
    private func outcome(of ticket: UInt64) -> Bool? {
        if ticket <= forgottenDropsThrough || droppedRanges.contains(where: { $0.contains(ticket) }) { return false }
        if ticket <= settledThrough { return true }
        if closed { return false }
        return nil
    }

    private func takeSettledWaiters() -> [(continuation: CheckedContinuation<WaitResult, Never>, committed: WaitResult)] {
        var ready: [(continuation: CheckedContinuation<WaitResult, Never>, committed: WaitResult)] = []
        waiters.removeAll { waiter in
            guard let committed = outcome(of: waiter.ticket) else { return false }
            ready.append((waiter.continuation, committed ? .committed : .dropped))
            return true
        }
        return ready
    }

    private func markDropped(_ ticket: UInt64) {
        if let last = droppedRanges.last, last.upperBound + 1 == ticket {
            droppedRanges[droppedRanges.count - 1] = last.lowerBound...ticket
        } else {
            droppedRanges.append(ticket...ticket)
            if droppedRanges.count > Self.maxDroppedRuns {
                let forgotten = droppedRanges.removeFirst()
                forgottenDropsThrough = max(forgottenDropsThrough, forgotten.upperBound)
            }
        }
    }
}

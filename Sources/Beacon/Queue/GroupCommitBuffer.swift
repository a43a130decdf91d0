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
/// - When the store fails, events stay here, the writer retries with backoff, and the
///   fault is reported. If the buffer fills while the store is failing, the oldest
///   buffered event is dropped and counted. While the store is healthy, a full buffer
///   makes `append` wait for the next commit instead (backpressure, never loss).
///
/// Thread safety: every mutable field is guarded by `condition`; `@unchecked Sendable`
/// is sound because nothing is read or written outside `condition.lock()`.
final class GroupCommitBuffer: @unchecked Sendable {
    struct Configuration: Sendable {
        /// Events held in memory at most. Default 10,000.
        var capacity = 10_000
        /// Events per transaction at most. Default 1,000.
        var maxGroup = 1_000
        /// First retry delay after a failed commit.
        var initialRetryDelay: Duration = .milliseconds(50)
        /// Longest retry delay.
        var maxRetryDelay: Duration = .seconds(2)
    }

    /// Commits a group; runs on the writer queue. Returns the error, if any.
    typealias Commit = @Sendable ([PendingEvent]) -> StorageError?

    private let configuration: Configuration
    private let writer: DispatchQueue
    private let commit: Commit
    private let condition = NSCondition()

    private var entries = Deque<PendingEvent>()
    private var firstBufferedTicket: UInt64 = 1
    private var nextTicket: UInt64 = 1
    private var settledThrough: UInt64 = 0
    private var droppedRanges: [ClosedRange<UInt64>] = []
    private var waiters: [(id: Int, ticket: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var waiterCounter = 0
    private var writing = false
    private var failure: StorageError?
    private var retryDelay: Duration
    private var closed = false

    /// Called on the writer queue when events are dropped from memory.
    var onDrop: (@Sendable (Int) -> Void)?
    /// Called on the writer queue when a commit fails (the first failure of a run, and
    /// each time the kind of failure changes).
    var onFailure: (@Sendable (StorageError, Int) -> Void)?
    /// Called on the writer queue when a commit succeeds after failures.
    var onRecovery: (@Sendable () -> Void)?

    init(configuration: Configuration, label: String, commit: @escaping Commit) {
        self.configuration = configuration
        self.writer = DispatchQueue(label: label)
        self.commit = commit
        self.retryDelay = configuration.initialRetryDelay
    }

    /// Events accepted and not yet committed (including the group being written).
    var bufferedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return Int(nextTicket - 1 - settledThrough) - droppedAfterSettled()
    }

    /// Events accepted since the buffer was made.
    var acceptedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return Int(nextTicket - 1)
    }

    /// Adds an event; see the type's documentation for when this waits.
    func append(_ event: PendingEvent) -> CommitTicket {
        condition.lock()
        while entries.count >= configuration.capacity, failure == nil, !closed {
            condition.wait()
        }
        var dropped = 0
        while entries.count >= configuration.capacity {
            entries.removeFirst()
            markDropped(firstBufferedTicket)
            firstBufferedTicket += 1
            dropped += 1
        }
        let ticket = nextTicket
        nextTicket += 1
        entries.append(event)
        let start = !writing && failure == nil && !closed
        if start { writing = true }
        let ready = dropped > 0 ? takeSettledWaiters() : []
        condition.unlock()
        for waiter in ready { waiter.continuation.resume(returning: waiter.committed) }
        if dropped > 0, let onDrop { writer.async { [dropped] in onDrop(dropped) } }
        if start { writer.async { self.drain() } }
        return CommitTicket(rawValue: ticket)
    }

    /// Waits until the ticket is settled; returns `false` if its event was dropped, or if
    /// the waiting task was cancelled first.
    func waitForCommit(_ ticket: CommitTicket) async -> Bool {
        let id = nextWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                condition.lock()
                if let committed = outcome(of: ticket.rawValue) {
                    condition.unlock()
                    continuation.resume(returning: committed)
                    return
                }
                if Task.isCancelled {
                    condition.unlock()
                    continuation.resume(returning: false)
                    return
                }
                waiters.append((id, ticket.rawValue, continuation))
                condition.unlock()
            }
        } onCancel: {
            condition.lock()
            let index = waiters.firstIndex { $0.id == id }
            let waiter = index.map { waiters.remove(at: $0) }
            condition.unlock()
            waiter?.continuation.resume(returning: false)
        }
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
        let left = Array(entries)
        entries.removeAll()
        let pending = waiters
        waiters.removeAll()
        condition.broadcast()
        condition.unlock()
        for waiter in pending { waiter.continuation.resume(returning: false) }
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
            var taken = Deque<PendingEvent>()
            if count == entries.count {
                swap(&taken, &entries)  // O(1) under the lock: producers are never held up by a copy
            } else {
                taken.append(contentsOf: entries.prefix(count))
                entries.removeFirst(count)
            }
            let firstTicket = firstBufferedTicket
            firstBufferedTicket += UInt64(count)
            condition.broadcast()  // room for producers waiting on a full buffer
            condition.unlock()
            let group = Array(taken)

            if let error = commit(group) {
                fail(group: group, firstTicket: firstTicket, error: error)
                return
            }

            condition.lock()
            let recovered = failure != nil
            failure = nil
            retryDelay = configuration.initialRetryDelay
            settledThrough = firstTicket + UInt64(count) - 1
            let ready = takeSettledWaiters()
            condition.unlock()
            for waiter in ready { waiter.continuation.resume(returning: waiter.committed) }
            if recovered { onRecovery?() }
        }
    }

    private func fail(group: [PendingEvent], firstTicket: UInt64, error: StorageError) {
        condition.lock()
        entries.insert(contentsOf: group, at: 0)
        firstBufferedTicket = firstTicket
        var dropped = 0
        while entries.count > configuration.capacity {
            entries.removeFirst()
            markDropped(firstBufferedTicket)
            firstBufferedTicket += 1
            dropped += 1
        }
        let changed = failure?.kind != error.kind
        failure = error
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, configuration.maxRetryDelay)
        let buffered = entries.count
        let ready = takeSettledWaiters()
        condition.broadcast()  // producers waiting for room now drop the oldest instead
        condition.unlock()
        for waiter in ready { waiter.continuation.resume(returning: waiter.committed) }
        if dropped > 0 { onDrop?(dropped) }
        if changed { onFailure?(error, buffered) }
        writer.asyncAfter(deadline: .now() + .nanoseconds(Int(truncatingIfNeeded: delay.inNanoseconds))) { self.drain() }
    }

    // MARK: - Bookkeeping (call with the lock held)

    /// `true` committed, `false` dropped, `nil` not settled yet.
    private func outcome(of ticket: UInt64) -> Bool? {
        if droppedRanges.contains(where: { $0.contains(ticket) }) { return false }
        if ticket <= settledThrough { return true }
        if closed { return false }
        return nil
    }

    private func takeSettledWaiters() -> [(continuation: CheckedContinuation<Bool, Never>, committed: Bool)] {
        var ready: [(continuation: CheckedContinuation<Bool, Never>, committed: Bool)] = []
        waiters.removeAll { waiter in
            guard let committed = outcome(of: waiter.ticket) else { return false }
            ready.append((waiter.continuation, committed))
            return true
        }
        return ready
    }

    private func markDropped(_ ticket: UInt64) {
        if let last = droppedRanges.last, last.upperBound + 1 == ticket {
            droppedRanges[droppedRanges.count - 1] = last.lowerBound...ticket
        } else {
            droppedRanges.append(ticket...ticket)
            if droppedRanges.count > 1024 { droppedRanges.removeFirst(droppedRanges.count - 1024) }
        }
    }

    private func droppedAfterSettled() -> Int {
        droppedRanges.reduce(0) { total, range in
            let lower = max(range.lowerBound, settledThrough + 1)
            return lower <= range.upperBound ? total + Int(range.upperBound - lower + 1) : total
        }
    }
}

extension BatcherStateMachine {
    /// What the ``Batcher`` actor does after an input: one action, executed in order.
    enum Action {
        /// Nothing.
        case none
        /// Stop the timer (nothing to wait for, or offline).
        case cancelTimer
        /// Wake at this instant; first report the destination as `reporting`, if any.
        case armTimer(Instant, reporting: Reported?)
        /// Report the destination.
        case reportDestination
        /// Just went offline (or held by the operator): report it, stop the timer and, when
        /// `dropReadAhead`, wait for the settles under way and release the leases (the next
        /// read starts from the head).
        case goOffline(dropReadAhead: Bool)
        /// Idle: ask ``BatcherStateMachine/evaluatePolicy(depth:now:)`` with the queue's depth.
        case evaluatePolicy
        /// Go on draining (first report the destination as `reporting`, if any): ask
        /// ``BatcherStateMachine/nextBatch(batchSize:)``.
        case drain(reporting: Reported?)
        /// The policy says flush: start draining, as ``drain(reporting:)``.
        case startDrain(FlushReason)
        /// Read at most `limit` events from `start` (from the head: once the settles under
        /// way have landed) and make them attempt `attempt`; then tell how the read went.
        case read(ReadStart, limit: Int, attempt: Int)
        /// Read up to `batches` batches of at most `limit` events each, the first from
        /// `start` (as ``read(_:limit:attempt:)``), each next one after the one before, all
        /// attempt `attempt`; send them at once, then tell
        /// ``BatcherStateMachine/waveFinished(_:now:batchSize:)`` (or, when the first read
        /// fails or finds nothing, as ``read(_:limit:attempt:)`` does).
        case readWave(ReadStart, limit: Int, attempt: Int, batches: Int)
        /// Send this batch read ahead; read the one after it with at most `limit` events.
        case send(Batch, limit: Int)
        /// The queue had nothing, or the last read came back short (the drain caught up):
        /// wait for the settles, then ``BatcherStateMachine/drainFinished(now:)``.
        case finishDrain
        /// Settle the batch after the one before it; unless `keepingLeases`, wait for the
        /// settles and release the leases. Then ``BatcherStateMachine/settleScheduled()``.
        case settleThenReport(keepingLeases: Bool)
        /// Stop the run loop: finish the stream of wakes (the final flush follows).
        case finishWakes
        /// Drain what is queued for the final flush, bounded in time.
        case finalDrain
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/endBackoff()``.
    enum EndBackoffAction: Equatable, Sendable {
        /// A backoff was ended: report the destination and wake the run loop.
        case reportDestination
        /// There was no backoff: nothing changed.
        case noBackoff
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/batchFilteredOut()``.
    enum BatchFilteredOutAction: Equatable, Sendable {
        /// Settle the batch (as filtered out) keeping the leases, and go on after it.
        case settleKeepingLeases
        /// No batch was under way: nothing to settle.
        case none
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/settleScheduled()``.
    enum SettleScheduledAction: Equatable, Sendable {
        /// Report the destination.
        case reportDestination
        /// Report the destination as `reporting`, and wake at this instant (a backoff's end).
        case armTimer(Instant, reporting: Reported)
    }
}

extension BatcherStateMachine.Action: Equatable where Batch: Equatable {}
extension BatcherStateMachine.Action: Sendable where Batch: Sendable {}

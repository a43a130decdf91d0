extension BatcherStateMachine {
    // One action enum per input, each with only the cases that input can return: the
    // ``Batcher`` actor switches over every one of them, with no `default:` and no case
    // it must ignore (swift-nio's `NIOAsyncWriter` does the same).

    /// What the ``Batcher`` does after ``BatcherStateMachine/wake(now:settings:wentOffline:)``.
    enum WakeAction: Equatable, Sendable {
        /// Nothing (a batch is being read or sent, or a pause holds with nothing to report).
        case none
        /// Stop the timer (offline or held already).
        case cancelTimer
        /// Wake at this instant (a backoff's end); first report the destination as
        /// `reporting`, if any.
        case armTimer(Instant, reporting: Reported?)
        /// Report the destination (back online into a pause).
        case reportDestination
        /// Just went offline (or held by the operator): report it, stop the timer and, when
        /// `dropReadAhead`, wait for the settles under way and release the leases (the next
        /// read starts from the head).
        case goOffline(dropReadAhead: Bool)
        /// Idle: ask ``BatcherStateMachine/evaluatePolicy(depth:now:)`` with the queue's depth.
        case evaluatePolicy
        /// Go on draining (first report the destination as `reporting`, if any): ask
        /// ``BatcherStateMachine/nextBatches(batchSize:concurrency:)``.
        case drain(reporting: Reported?)
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/evaluatePolicy(depth:now:)``.
    enum PolicyAction: Equatable, Sendable {
        /// Not idle: nothing to decide.
        case none
        /// Nothing to wait for: stop the timer.
        case cancelTimer
        /// Wake at this instant (the policy's next deadline).
        case armTimer(Instant)
        /// The policy says flush: start draining, as ``WakeAction/drain(reporting:)``.
        case startDrain(FlushReason)
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/nextBatch(batchSize:)`` and
    /// ``BatcherStateMachine/nextBatches(batchSize:concurrency:)``.
    enum NextBatchAction {
        /// Not draining: nothing to send.
        case none
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
        /// The last read came back short (the drain caught up): wait for the settles, then
        /// ``BatcherStateMachine/drainFinished(now:)``.
        case finishDrain
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/readFailed(now:random:)``.
    enum ReadFailedAction: Equatable, Sendable {
        /// No read was under way.
        case none
        /// Back off: wake at this instant.
        case armTimer(Instant)
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/readFoundNothing(now:random:)``.
    enum ReadFoundNothingAction: Equatable, Sendable {
        /// No read was under way.
        case none
        /// Nothing lies past an event that fails alone: report the backoff and wake at its end.
        case backOff(until: Instant)
        /// The queue had nothing: wait for the settles, then
        /// ``BatcherStateMachine/drainFinished(now:)``.
        case finishDrain
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/sendFinished(_:sent:readAhead:now:batchSize:)``
    /// and ``BatcherStateMachine/waveFinished(_:now:batchSize:)``.
    enum SendFinishedAction: Equatable, Sendable {
        /// No batch was under way (its answer is stale): nothing to settle.
        case none
        /// Settle the batch after the one before it; unless `keepingLeases`, wait for the
        /// settles and release the leases. Then ``BatcherStateMachine/settleScheduled()``.
        case settleThenReport(keepingLeases: Bool)
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/shutdown()``.
    enum ShutdownAction: Equatable, Sendable {
        /// Stop the run loop: finish the stream of wakes (the final flush follows).
        case finishWakes
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/finalFlush(isOffline:deadline:)``.
    enum FinalFlushAction: Equatable, Sendable {
        /// Offline, paused or held: the events stay queued.
        case none
        /// Drain what is queued for the final flush, bounded in time.
        case finalDrain
        /// The destination's server asked for quiet until after the final flush's deadline
        /// (`Retry-After`): nothing is sent to it, and the events stay queued.
        case keepsServersWait(until: Instant)
    }

    /// What the ``Batcher`` does after ``BatcherStateMachine/drainFinished(now:)``.
    enum DrainFinishedAction: Equatable, Sendable {
        /// No drain had ended (not idle).
        case none
        /// Report the destination.
        case reportDestination
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

extension BatcherStateMachine.NextBatchAction: Equatable where Batch: Equatable {}
extension BatcherStateMachine.NextBatchAction: Sendable where Batch: Sendable {}

/// What a ``Batcher`` is doing and what it does next: a pure value with inputs in and
/// actions out (one action enum per input: ``WakeAction``, ``NextBatchAction``, …),
/// which the actor executes. No clock inside: callers pass the
/// instants; no I/O: reads, sends, settles, timers and reports are the actor's.
///
/// | state | meaning |
/// |---|---|
/// | `idle(after:)` | waiting for the flush policy; a drain starts after `after` (or from the head) |
/// | `draining(next)` | between two batches of a drain: the next comes from the head, after a sequence, or was read ahead |
/// | `reading(resumeAfter:fromHead:)` | reading the next batch from the queue |
/// | `batch(through:)` | a batch (or a wave of batches, see ``waveFinished(_:now:batchSize:)``) in hand, being sent (or all filtered out) |
/// | `backingOff(until:)` | a send or a read failed: the drain goes on from the head at `until` |
/// | `paused(reason:)` | credentials refused: the drain goes on from the head when resumed |
/// | `offline(then:)` | sending is switched off; coming back online always drains |
/// | `held(then:)` | paused by the operator (``hold()``); released (``release()``), it drains, unless `then` still holds |
///
/// A drain goes on while its reads come back full. A read that came back short (fewer
/// events than the limit, well under the byte limit) took everything that was queued: once
/// its batch is delivered the drain ends, and what was committed meanwhile waits for the
/// flush policy. So a steady flow goes out in the policy's batches, not as one small
/// request per round trip. Not while a split, an isolation or a probe is under way (their
/// batches are short on purpose), and not in a drain that was asked for or the final
/// one, which send everything.
///
/// Offline comes first, then the operator's hold, then a pause for refused credentials,
/// then a backoff: what an outer one suspends is kept in its `then` and comes back when it
/// ends. A hold asked for while a batch is read or sent takes effect once that batch is
/// done, at the next wake, the same way offline does.
///
/// Beside the state it keeps the flush scheduler, the consecutive failures, the failure
/// streak of the batch at the head (for giving up, see ``RetryPolicy/maxAttempts``), the
/// last error, the split limit, whether a settle failed, and whether the batcher shuts down.
/// An input a state does not expect (none does in the actor's order) is ignored: the
/// state stays and the action is that input's `none`.
struct BatcherStateMachine<Instant: InstantProtocol, Batch> where Instant.Duration == Duration {
    /// The state proper.
    enum State {
        case idle(after: Int64?)
        case draining(Next)
        case reading(resumeAfter: Int64?, fromHead: Bool)
        case batch(through: Int64)
        case backingOff(until: Instant)
        case paused(reason: String)
        case offline(then: Suspension?)
        case held(then: Suspension?)
    }

    /// Where the next batch of a drain comes from.
    enum Next {
        /// From the queue's head, once the settles under way have landed.
        case head
        /// From after this sequence (the last batch done with; its settle may be under way).
        case after(Int64)
        /// This batch, read and prepared while the one before it was sent; `through` is its last sequence.
        case readAhead(Batch, through: Int64)
    }

    /// What still holds once the batcher is back online (or released by the operator).
    indirect enum Suspension: Sendable, Hashable {
        case backingOff(until: Instant)
        case paused(reason: String)
        /// Held by the operator (only under offline), over what `then` says.
        case held(then: Suspension?)
    }

    /// Where a read from the queue starts.
    enum ReadStart: Sendable, Hashable {
        /// From the head: wait for the settles under way first, or their events come again.
        case head
        /// After this sequence, without waiting.
        case after(Int64)

        /// The `after` argument of ``EventQueue/peek(for:after:limit:maxBytes:)``.
        var sequence: Int64? {
            if case .after(let sequence) = self { return sequence }
            return nil
        }
    }

    /// The destination's state as the observer sees it, derived from ``state``.
    enum Reported: Sendable, Hashable {
        case idle
        case backingOff(until: Instant)
        case paused(reason: String)
        case offline
        /// Paused by the operator.
        case held
    }

    /// The failed sends in a row of the batch at the head.
    struct Streak: Sendable, Hashable {
        /// Failed sends so far.
        var attempts: Int
        /// When the first failed (its send's end).
        var since: Instant
        /// Retries ran out for the batch through this sequence: its events are split and
        /// sent once each until the one that fails alone is dead-lettered, or a delivery
        /// goes past it.
        var isolatingThrough: Int64?
        /// While isolating, the failures alone of the event found that came right after a
        /// delivery (``FailureStreak/soloFailures``).
        var soloFailures = 0
        /// While isolating, a batch was delivered since the event found alone last failed.
        var deliveredSinceSoloFailure = false
        /// The isolation began because retries ran out (not after ``RetryPolicy/isolateAfter``
        /// server errors): its attempts keep counting through the deliveries of the search.
        var gaveUp = false
        /// The destination's server asked not to be sent to before then (`Retry-After`,
        /// as far as the policy's ``RetryPolicy/maxRetryAfter`` lets it): a final flush
        /// whose deadline comes first leaves it alone.
        var quietUntil: Instant?
        /// The batch in flight was read past the event through this sequence, which
        /// failed alone with no delivery around it (``DeliveryDecision/probePast(reason:)``).
        var probingPast: Int64?
    }

    /// The batch read ahead while a batch was sent.
    struct ReadAhead {
        /// The batch.
        var batch: Batch
        /// Its last sequence.
        var through: Int64
        /// Whether the read came back full (see ``batchRead(through:full:)``).
        var full = true
    }

    private(set) var state: State
    /// When drains start; the machine asks it while idle.
    private(set) var scheduler: FlushScheduler<Instant>
    /// Consecutive failed attempts of the batch at the head.
    private(set) var failures = 0
    /// The failed sends of the batch at the head, cleared by a delivery (past the isolated
    /// batch, when isolating) or a dead letter.
    private(set) var streak: Streak?
    /// The last send error, cleared by a delivery.
    private(set) var lastError: String?
    /// When a batch the destination had refused last went through whole, sent again:
    /// its failures come at random (``FailureStreak/failsAtRandom``).
    private(set) var recoveredByRetryAt: Instant?
    /// Batches hold at most this many events until deliveries double it back to the batch size.
    private(set) var splitLimit: Int?
    /// A settle failed: its events are still queued, so the next read that is not a
    /// read-ahead starts from the head and sends them again (the collector dedups).
    private(set) var settleFailed = false
    /// The run loop stops at its next wake; the final flush follows.
    private(set) var isShuttingDown = false
    /// The operator paused this destination (``hold()``); the state follows at the next
    /// wake (at once unless a batch is being read or sent).
    private(set) var isHeld = false
    /// The last read of the drain came back full: the drain goes on after its batch.
    private(set) var lastReadFull = true
    /// The same for the batch read ahead, once it is sent.
    private var readAheadFull = true
    /// The drain that just ended caught up (a short read), rather than finding nothing:
    /// events may be left (committed meanwhile), for the policy to look at at once.
    private(set) var drainCaughtUp = false
    /// The drain under way sends everything, short reads or not, until a read finds
    /// nothing: one asked for (``requestFlush()``, served by ``evaluatePolicy(depth:now:)``)
    /// or the final one (``finalFlush(isOffline:)``). A flush means "empty the queue".
    private(set) var drainsEverything = false
    private let retryPolicy: RetryPolicy

    /// A machine as a batcher starts: idle, or offline when `isOffline`.
    init(policy: FlushPolicy, isOffline: Bool, retryPolicy: RetryPolicy, now: Instant) {
        self.init(state: isOffline ? .offline(then: nil) : .idle(after: nil), scheduler: FlushScheduler(policy: policy, now: now), retryPolicy: retryPolicy)
    }

    /// A machine in any state, for tests.
    init(
        state: State, scheduler: FlushScheduler<Instant>, retryPolicy: RetryPolicy, failures: Int = 0, splitLimit: Int? = nil,
        streak: Streak? = nil, isHeld: Bool? = nil
    ) {
        self.isHeld = isHeld ?? Self.holds(state)
        self.state = state
        self.scheduler = scheduler
        self.retryPolicy = retryPolicy
        self.failures = failures
        self.splitLimit = splitLimit
        self.streak = streak
    }

    // MARK: Queries

    /// Whether a drain goes on (no backoff, pause, or end in between).
    var isDraining: Bool {
        switch state {
        case .draining, .reading, .batch: return true
        case .idle, .backingOff, .paused, .offline, .held: return false
        }
    }

    /// The drain ends once the batch in hand is done with: its read came back short, no
    /// split, isolation or probe (whose batches are short on purpose) is under way, and
    /// the drain is neither one asked for nor the final one (``drainsEverything``).
    /// Reading ahead then would only fetch what arrived meanwhile.
    var endsAfterThisBatch: Bool {
        !lastReadFull && !drainsEverything && streak == nil && splitLimit == nil
    }

    /// The fewest events pending at which a commit must wake the batcher: the policy's
    /// (``FlushScheduler/commitThreshold(_:timerArmed:)``) while idle; 1 in every other
    /// state, where the actor decides what a commit means as it always did; `nil`: a
    /// commit changes nothing (idle under a manual policy).
    func commitWakeThreshold(timerArmed: Bool) -> Int? {
        guard case .idle = state else { return 1 }
        return FlushScheduler<Instant>.commitThreshold(scheduler.policy, timerArmed: timerArmed)
    }

    /// Whether a batch was read ahead and waits to be sent.
    var hasReadAhead: Bool {
        if case .draining(.readAhead) = state { return true }
        return false
    }

    /// The failure streak as ``DeliveryPlanner`` takes it, its age measured at `now`.
    func failureStreak(now: Instant) -> FailureStreak {
        guard let streak else { return FailureStreak() }
        return FailureStreak(
            attempts: streak.attempts, age: streak.since.duration(to: now), isIsolating: streak.isolatingThrough != nil,
            soloFailures: streak.soloFailures, deliveredSinceSoloFailure: streak.deliveredSinceSoloFailure,
            isProbing: streak.probingPast != nil, failsAtRandom: failsAtRandom(now: now))
    }

    /// Whether a refused batch went through whole on a retry within
    /// ``RetryPolicy/randomFailureMemory`` of `now`.
    func failsAtRandom(now: Instant) -> Bool {
        guard let recoveredByRetryAt else { return false }
        return recoveredByRetryAt.duration(to: now) < retryPolicy.randomFailureMemory
    }

    /// What to report for the destination: offline first, then held, then paused, then backing off.
    var reported: Reported {
        switch state {
        case .offline: return .offline
        case .held: return .held
        case .paused(let reason): return .paused(reason: reason)
        case .backingOff(let until): return .backingOff(until: until)
        case .idle, .draining, .reading, .batch: return .idle
        }
    }

    /// Whether `state` is held by the operator (directly, or under offline).
    static func holds(_ state: State) -> Bool {
        switch state {
        case .held, .offline(then: .held): return true
        case .idle, .draining, .reading, .batch, .backingOff, .paused, .offline: return false
        }
    }

    /// The state a suspension that ends leaves: what it kept, or a drain from the head.
    static func restoring(_ kept: Suspension?) -> State {
        switch kept {
        case .backingOff(let until): return .backingOff(until: until)
        case .paused(let reason): return .paused(reason: reason)
        case .held(let then): return .held(then: then)
        case nil: return .draining(.head)
        }
    }
}

extension BatcherStateMachine.State: Equatable where Batch: Equatable {}
extension BatcherStateMachine.Next: Equatable where Batch: Equatable {}

extension BatcherStateMachine {
    // MARK: Run loop

    /// The run loop looks: after a commit, a timer, a command or a settings change.
    /// `wentOffline`: the settings went offline since the last look, even if they are
    /// back online already (coming back online always drains).
    mutating func wake(now: Instant, settings: EngineSettings, wentOffline: Bool) -> WakeAction {
        switch state {
        case .reading, .batch: return .none
        case .idle, .draining, .backingOff, .paused, .offline, .held: break
        }
        if settings.policy != scheduler.policy { scheduler.setPolicy(settings.policy, now: now) }
        if settings.isOffline { return goOffline() }
        var backOnline = wentOffline
        switch state {
        case .offline(let then):
            backOnline = true
            state = Self.restoring(then)
        case .idle(let after) where wentOffline:
            state = .draining(after.map(Next.after) ?? .head)
        case .idle, .draining, .backingOff, .paused, .reading, .batch, .held:
            break
        }
        if isHeld { return goHeld(backOnline: backOnline) }
        var released = false
        if case .held(let then) = state {
            released = true
            state = Self.restoring(then)
        }
        // Back online (or released), the destination is reported as it is before an expired backoff ends.
        let reporting = backOnline || released ? reported : nil
        switch state {
        case .paused:
            return reporting != nil ? .reportDestination : .none
        case .backingOff(let until):
            if now < until { return .armTimer(until, reporting: reporting) }
            state = .draining(.head)
            return .drain(reporting: reporting)
        case .idle:
            return .evaluatePolicy
        case .draining:
            return .drain(reporting: reporting)
        case .reading, .batch, .offline, .held:
            return .none
        }
    }

    /// Online and held by the operator: stop as offline does, keeping what holds beneath.
    private mutating func goHeld(backOnline: Bool) -> WakeAction {
        switch state {
        case .held:
            return backOnline ? .goOffline(dropReadAhead: false) : .cancelTimer
        case .idle(let after):
            state = .held(then: nil)
            return .goOffline(dropReadAhead: after != nil)
        case .draining(let next):
            state = .held(then: nil)
            if case .head = next { return .goOffline(dropReadAhead: false) }
            return .goOffline(dropReadAhead: true)
        case .backingOff(let until):
            state = .held(then: .backingOff(until: until))
            return .goOffline(dropReadAhead: false)
        case .paused(let reason):
            state = .held(then: .paused(reason: reason))
            return .goOffline(dropReadAhead: false)
        case .reading, .batch, .offline:
            return .none
        }
    }

    private mutating func goOffline() -> WakeAction {
        switch state {
        case .offline:
            return .cancelTimer
        case .idle(let after):
            state = .offline(then: nil)
            return .goOffline(dropReadAhead: after != nil)
        case .draining(let next):
            state = .offline(then: nil)
            if case .head = next { return .goOffline(dropReadAhead: false) }
            return .goOffline(dropReadAhead: true)
        case .backingOff(let until):
            state = .offline(then: .backingOff(until: until))
            return .goOffline(dropReadAhead: false)
        case .paused(let reason):
            state = .offline(then: .paused(reason: reason))
            return .goOffline(dropReadAhead: false)
        case .held(let then):
            state = .offline(then: .held(then: then))
            return .goOffline(dropReadAhead: false)
        case .reading, .batch:
            return .none
        }
    }

    /// Idle and online: whether the flush policy starts a drain with `depth` events pending.
    mutating func evaluatePolicy(depth: Int, now: Instant) -> PolicyAction {
        guard case .idle(let after) = state else { return .none }
        switch scheduler.evaluate(depth: depth, now: now) {
        case .idle:
            return .cancelTimer
        case .wait(let deadline):
            return .armTimer(deadline)
        case .flush(let reason):
            state = .draining(after.map(Next.after) ?? .head)
            if reason == .manual { drainsEverything = true }
            return .startDrain(reason)
        }
    }

    // MARK: Commands

    /// A flush was asked for: the next evaluation starts a drain, whatever the policy.
    /// Nothing to do now (the caller wakes the run loop).
    mutating func requestFlush() {
        scheduler.requestFlush()
    }

    /// Resumes a destination paused by refused credentials, or cuts a backoff short: the
    /// drain goes on from the head. Under offline or an operator's hold, what they keep
    /// is cleared the same way; the hold itself stays (see ``release()``). The caller
    /// reports the destination, whatever the state was.
    mutating func resume() {
        switch state {
        case .paused, .backingOff: state = .draining(.head)
        case .offline(then: .held): state = .offline(then: .held(then: nil))
        case .offline: state = .offline(then: nil)
        case .held: state = .held(then: nil)
        case .idle, .draining, .reading, .batch: break
        }
    }

    /// The operator asks for the retry now: a backoff ends and the drain goes on from the
    /// head. Only the backoff: a pause (the operator's or for credentials) and offline
    /// stay, and a backoff they keep is dropped so they end into a drain.
    mutating func endBackoff() -> EndBackoffAction {
        switch state {
        case .backingOff: state = .draining(.head)
        case .offline(then: .backingOff): state = .offline(then: nil)
        case .offline(then: .held(then: .backingOff)): state = .offline(then: .held(then: nil))
        case .held(then: .backingOff): state = .held(then: nil)
        case .idle, .draining, .reading, .batch, .paused, .offline, .held: return .noBackoff
        }
        return .reportDestination
    }

    /// The operator pauses this destination: at the next wake it stops sending (after the
    /// batch under way, if any) and its events stay queued. Call ``wake(now:settings:wentOffline:)`` next.
    mutating func hold() {
        isHeld = true
    }

    /// The operator resumes this destination: at the next wake it drains what waited,
    /// unless offline, a credentials pause or a backoff still holds. Call
    /// ``wake(now:settings:wentOffline:)`` next.
    mutating func release() {
        isHeld = false
    }

    /// A settle failed: its events are still queued (the next read starts from the head).
    mutating func settleDidFail() {
        settleFailed = true
    }

    /// Graceful shutdown: the run loop stops at its next wake.
    mutating func shutdown() -> ShutdownAction {
        isShuttingDown = true
        return .finishWakes
    }

    /// The run loop stopped: drain what is queued, unless offline, paused or held. A
    /// backoff under way is cut short.
    mutating func finalFlush(isOffline: Bool, deadline: Instant? = nil) -> FinalFlushAction {
        if isOffline || isHeld { return .none }
        if let quiet = streak?.quietUntil, let deadline, quiet > deadline {
            switch state {
            case .backingOff, .offline(then: .backingOff): return .keepsServersWait(until: quiet)
            default: break
            }
        }
        switch state {
        case .paused, .offline(then: .paused), .held, .offline(then: .held):
            return .none
        case .idle(let after):
            state = .draining(after.map(Next.after) ?? .head)
        case .backingOff, .offline:
            state = .draining(.head)
        case .draining, .reading, .batch:
            break
        }
        drainsEverything = true
        return .finalDrain
    }
}

extension BatcherStateMachine {
    /// Draining: what to send next, batches of at most `batchSize` events (less after a split).
    mutating func nextBatch(batchSize: Int) -> NextBatchAction {
        guard case .draining(let next) = state else { return .none }
        let limit = min(batchSize, splitLimit ?? .max)
        switch next {
        case .readAhead(let batch, let through):
            lastReadFull = readAheadFull
            state = .batch(through: through)
            return .send(batch, limit: limit)
        case .after(let after) where !settleFailed && endsAfterThisBatch:
            // The last read took everything queued then: the drain is over.
            lastReadFull = true
            drainCaughtUp = true
            state = .idle(after: after)
            return .finishDrain
        case .after(let after) where !settleFailed:
            state = .reading(resumeAfter: after, fromHead: false)
            return .read(.after(after), limit: limit, attempt: failures + 1)
        case .after(let after):
            state = .reading(resumeAfter: after, fromHead: true)
            return .read(.head, limit: limit, attempt: failures + 1)
        case .head:
            state = .reading(resumeAfter: nil, fromHead: true)
            return .read(.head, limit: limit, attempt: failures + 1)
        }
    }

    /// The read failed: back off (`random` is a draw in `0..<1` for the jitter).
    mutating func readFailed(now: Instant, random: Double) -> ReadFailedAction {
        guard case .reading(_, let fromHead) = state else { return .none }
        if fromHead { settleFailed = false }
        failures += 1
        let until = now.advanced(by: retryPolicy.delay(afterFailures: failures, retryAfter: nil, random: random))
        state = .backingOff(until: until)
        return .armTimer(until)
    }

    /// The read found nothing: the drain ends (`random` is a draw in `0..<1` for the
    /// jitter of a backoff).
    mutating func readFoundNothing(now: Instant, random: Double) -> ReadFoundNothingAction {
        guard case .reading(let resumeAfter, let fromHead) = state else { return .none }
        if fromHead { settleFailed = false }
        if streak?.probingPast != nil {
            // Nothing lies past the event that fails alone: nothing tells a failing event
            // from a failing destination, and it holds nothing back. Back off, then again
            // from the head.
            streak?.probingPast = nil
            failures += 1
            let until = now.advanced(by: retryPolicy.delay(afterFailures: failures, retryAfter: nil, random: random))
            state = .backingOff(until: until)
            return .backOff(until: until)
        }
        streak = nil  // whatever failed is no longer queued
        lastReadFull = true
        state = .idle(after: resumeAfter)
        return .finishDrain
    }

    /// The read found a batch whose last sequence is `through`; `full`: the read came
    /// back with as many events as it asked for, or near its byte limit (so more may wait).
    /// The caller goes on with the batch it read (to send it, or settle it filtered out).
    mutating func batchRead(through: Int64, full: Bool = true) {
        guard case .reading(_, let fromHead) = state else { return }
        if fromHead { settleFailed = false }
        lastReadFull = full
        state = .batch(through: through)
    }

    /// The destination's enrichment filtered out every event of the batch: nothing to
    /// send, the drain goes on after it.
    mutating func batchFilteredOut() -> BatchFilteredOutAction {
        guard case .batch(let through) = state else { return .none }
        state = .draining(.after(through))
        return .settleKeepingLeases
    }

    /// The send of `sent` events ended with `decision`; `readAhead` is the batch read
    /// meanwhile, if any. A delivery (or every event dead-lettered) goes on after the
    /// batch, with the batch read ahead; anything else drops it and goes on from the head.
    mutating func sendFinished(
        _ decision: DeliveryDecision, sent: Int, readAhead: ReadAhead?, now: Instant, batchSize: Int
    ) -> SendFinishedAction {
        guard case .batch(let through) = state else { return .none }
        let after: Next = readAhead.map { .readAhead($0.batch, through: $0.through) } ?? .after(through)
        if let readAhead { readAheadFull = readAhead.full }
        let wasProbing = streak?.probingPast != nil
        streak?.probingPast = nil
        switch decision {
        case .delivered where wasProbing:
            // Events after the one that fails alone went through: back to it, from the head.
            streak?.deliveredSinceSoloFailure = true
            state = .draining(.head)
            return .settleThenReport(keepingLeases: false)
        case .probePast(let reason):
            lastError = reason
            recordFailure(now: now)
            if streak?.deliveredSinceSoloFailure == true { streak?.soloFailures += 1 }
            streak?.deliveredSinceSoloFailure = false
            streak?.probingPast = through
            state = .draining(.after(through))
            return .settleThenReport(keepingLeases: true)
        case .delivered:
            if let isolated = streak?.isolatingThrough, through < isolated {
                // Isolating: the event that fails comes later; keep the streak and the limit.
                streak?.deliveredSinceSoloFailure = true
                if streak?.gaveUp == false {
                    // The search started early: the destination takes events, so the failures in
                    // a row start again (they would reach the give-up limit on a flaky one), and
                    // batches grow back (a flaky destination, not a poison event, may have
                    // started it: the search shrinks them again where a failure recurs).
                    streak?.attempts = 0
                    streak?.since = now
                    if let limit = splitLimit { splitLimit = min(limit * 2, batchSize) }
                }
                state = .draining(after)
                return .settleThenReport(keepingLeases: true)
            }
            // The batch at the head had failed, and went through whole sent again: the
            // destination fails at random (not while isolating: its batches are halves).
            if streak != nil, splitLimit == nil { recoveredByRetryAt = now }
            failures = 0
            streak = nil
            lastError = nil
            if let limit = splitLimit {
                let grown = limit * 2
                splitLimit = grown >= batchSize ? nil : grown
            }
            state = .draining(after)
            return .settleThenReport(keepingLeases: true)
        case .retry(let delay, let reason, let serverAsked):
            if wasProbing {
                // The events after it failed too: the destination fails, not (only) the event.
                streak?.soloFailures = 0
                streak?.deliveredSinceSoloFailure = false
            }
            failures += 1
            lastError = reason
            recordFailure(now: now)
            streak?.quietUntil = serverAsked.map { now.advanced(by: min($0, delay)) }
            state = .backingOff(until: now.advanced(by: delay))
            return .settleThenReport(keepingLeases: false)
        case .isolate(let limit, let reason):
            failures += 1
            lastError = reason
            recordFailure(now: now)
            if var current = streak, current.isolatingThrough == nil {
                current.isolatingThrough = through
                current.gaveUp = retryPolicy.givesUp(afterAttempts: current.attempts, failingFor: current.since.duration(to: now))
                streak = current
            }
            splitLimit = limit
            state = .draining(.head)
            return .settleThenReport(keepingLeases: false)
        case .deadLetter(let rejected):
            failures = 0
            streak = nil
            let all = rejected.count == sent
            state = .draining(all ? after : .head)
            return .settleThenReport(keepingLeases: all)
        case .split(let limit):
            splitLimit = limit
            state = .draining(.head)
            return .settleThenReport(keepingLeases: false)
        case .pause(let reason):
            lastError = reason
            state = .paused(reason: reason)
            return .settleThenReport(keepingLeases: false)
        }
    }

    private mutating func recordFailure(now: Instant) {
        if var current = streak {
            current.attempts = current.attempts < .max ? current.attempts + 1 : .max
            streak = current
        } else {
            streak = Streak(attempts: 1, since: now)
        }
    }

    /// The batch's settle is scheduled (and, unless the leases were kept, has landed):
    /// report, and when backing off, wake at its end.
    func settleScheduled() -> SettleScheduledAction {
        if case .backingOff(let until) = state { return .armTimer(until, reporting: .backingOff(until: until)) }
        return .reportDestination
    }

    /// The drain that found nothing more, or caught up, is over; its settles have landed.
    mutating func drainFinished(now: Instant) -> DrainFinishedAction {
        guard case .idle = state else { return .none }
        drainCaughtUp = false
        drainsEverything = false
        scheduler.didFlush(now: now)
        return .reportDestination
    }
}

extension BatcherStateMachine.State: Sendable where Batch: Sendable {}
extension BatcherStateMachine.Next: Sendable where Batch: Sendable {}
extension BatcherStateMachine.ReadAhead: Sendable where Batch: Sendable {}

/// Waves: with `maxConcurrentRequests` above 1, consecutive batches go out at once and
/// each is settled on its own; the machine takes the wave's results in queue order.
///
/// | inputs | state left | action |
/// |---|---|---|
/// | ``BatcherStateMachine/nextBatches(batchSize:concurrency:)``, concurrency 1, a split limit, isolating, or a batch read ahead | as ``BatcherStateMachine/nextBatch(batchSize:)`` | as it |
/// | the same, otherwise | `reading` | `readWave` (up to `concurrency` batches, each read after the one before) |
/// | ``BatcherStateMachine/waveFinished(_:now:batchSize:)``, every batch delivered, wholly dead-lettered or filtered | `draining(after: last)` | `settleThenReport(keepingLeases: true)` |
/// | the same, otherwise | as ``BatcherStateMachine/sendFinished(_:sent:readAhead:now:batchSize:)`` says for the first other batch in queue order, after the ones before it | as it |
///
/// So a failure in a wave counts once (one backoff), a 413 sets the split limit and goes
/// on from the head, a 401 pauses, a partial dead letter goes on from the head; the
/// batches after the first failure are settled on their own (what they delivered is done)
/// but do not steer the machine.
extension BatcherStateMachine {
    /// How one batch of a wave ended.
    enum WaveResult: Sendable, Hashable {
        /// Sent, with `events` events, ending with `decision`; `through` is its last sequence.
        case sent(DeliveryDecision, events: Int, through: Int64)
        /// Every event filtered out by the destination's enrichment: nothing was sent.
        case filtered(through: Int64)

        /// The batch's last sequence.
        var through: Int64 {
            switch self {
            case .sent(_, _, let through), .filtered(let through): return through
            }
        }
    }

    /// Whether the next batches may go out several at once: no split limit and no
    /// isolation of a failing event in force (those send one batch at a time).
    var allowsWave: Bool { splitLimit == nil && streak?.isolatingThrough == nil }

    /// Draining: what to send next with up to `concurrency` batches in flight. One batch
    /// (``nextBatch(batchSize:)``) when `concurrency` is 1, when a wave is not allowed
    /// (``allowsWave``) or when a batch was read ahead; otherwise a wave, read from where
    /// ``nextBatch(batchSize:)`` would read.
    mutating func nextBatches(batchSize: Int, concurrency: Int) -> NextBatchAction {
        guard concurrency > 1, allowsWave, case .draining(let next) = state else { return nextBatch(batchSize: batchSize) }
        if case .readAhead = next { return nextBatch(batchSize: batchSize) }
        let action = nextBatch(batchSize: batchSize)
        guard case .read(let start, let limit, let attempt) = action else { return action }
        return .readWave(start, limit: limit, attempt: attempt, batches: concurrency)
    }

    /// Every batch of the wave answered; `results` in queue order, the last one's
    /// `through` the sequence the wave was read through (``batchRead(through:)``).
    /// Folds them as one-batch sends would go, up to the first that does not go on after
    /// itself, which decides.
    mutating func waveFinished(_ results: [WaveResult], now: Instant, batchSize: Int) -> SendFinishedAction {
        guard case .batch(let through) = state, results.last?.through == through else { return .none }
        for result in results {
            switch result {
            case .filtered(let through):
                state = .draining(.after(through))
            case .sent(let decision, let events, let through):
                state = .batch(through: through)
                let action = sendFinished(decision, sent: events, readAhead: nil, now: now, batchSize: batchSize)
                guard case .settleThenReport(keepingLeases: true) = action, case .draining(.after(through)) = state else {
                    return action
                }
            }
        }
        return .settleThenReport(keepingLeases: true)
    }
}

import BeaconWire
import Logging
import ServiceLifecycle
import Synchronization

/// Cuts the queue into batches for one destination and sends them: an actor run as a
/// service. An engine runs one per destination, each at its own pace.
///
/// - Evaluates the flush policy on every commit and on its clock (``FlushScheduler``).
/// - Once triggered, drains: batch after batch, at once, until the destination has
///   everything or a send fails. At most one batch is in flight; while it is, the next
///   batch is read from the store and the previous one settled, so the store's work
///   overlaps the network's. After a delivery the next batch is read after the last one
///   sent, even when its settle has not landed (it may wait behind a group commit); after
///   a failure, or a settle that failed, it is read from the head once the settles landed.
/// - With ``Destination/maxConcurrentRequests`` above 1, sends waves instead: up to that
///   many consecutive batches read at the wave's start and sent at once, each settled on
///   its own (in queue order) once all have answered; the next wave starts after the
///   last when all were delivered, else the first failure in queue order decides as it
///   would alone (one backoff, a split, a pause). No batch of the next wave leaves before
///   a backoff ends. While a 413 split or the isolation of a failing event is in force,
///   batches go one at a time, without reading ahead.
/// - Settles each batch in one transaction as ``DeliveryPlanner`` decides: delivered
///   events are done for this destination, refused ones go to the dead-letter table, the
///   rest wait for a backoff. Retries end at ``RetryPolicy/maxAttempts`` or
///   ``RetryPolicy/maxAge``: the batch is split, its halves sent at once, until the event
///   that still fails alone is dead-lettered ("gave up after N attempts over T: ...").
/// - On graceful shutdown, a final drain: the whole shutdown, a batch in flight at its
///   start included, ends ``finalFlushTimeout`` after it began (what is left stays queued).
public actor Batcher<C: Clock>: Service where C.Duration == Duration {
    /// How long a shutdown may send for, from its start, a batch then in flight and the
    /// final drain included. Default 5 s.
    public let finalFlushTimeout: Duration

    private let queue: any DeliveryLog
    private let destination: Destination
    private let settings: SettingsStore
    private let retryPolicy: RetryPolicy
    private let clock: C
    private let observer: TrackingObserver?
    private let logger: Logger
    private let random: @Sendable () -> Double

    private let wakes: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    private typealias StateMachine = BatcherStateMachine<C.Instant, NextBatch>
    /// Draining, backing off, paused or offline; where the next batch starts, the batch
    /// read ahead, the split limit, the failures: every decision is the machine's.
    private var machine: StateMachine
    /// The armed timer's deadline (`nil`: none armed). Each arming hands a deadline to
    /// ``runTimers()``, whose sleep for it wakes the loop unless a later arming or a
    /// cancel made it stale (``timerGeneration``).
    private var timerDeadline: C.Instant?
    private let timerGeneration = Generation()
    private let timerRequests: AsyncStream<(C.Instant, Int)>
    private let timerRequestsContinuation: AsyncStream<(C.Instant, Int)>.Continuation
    /// The wall-clock time of the current backoff's end, as first reported.
    private var backoffWallTime: (until: C.Instant, wall: Timestamp)?
    /// Set by every switch to offline, even one undone before the loop looked: coming
    /// back online always drains the backlog.
    private let wentOffline = Flag()
    /// Raised by a graceful shutdown's handler, which cannot wait for the actor: the run
    /// loop begins the shutdown when it next looks, between two batches of a drain at the latest.
    private let shutdownRequested = Flag()
    /// Told of a shutdown's start (a graceful shutdown's handler, ``beginShutdown()``):
    /// ``cutAtShutdownDeadline()`` ends the run loop there, a batch in flight included.
    private let shutdownSignals: AsyncStream<Void>
    private let shutdownSignal: AsyncStream<Void>.Continuation
    /// When the shutdown began: the final drain ends ``finalFlushTimeout`` after it, the
    /// batch in flight at the start counted in.
    private var shutdownStartedAt: C.Instant?
    /// The settles of delivered batches, run in order by ``runSettles()`` while the next
    /// batch is sent.
    private var settles = SettleLine()
    /// The fewest pending events at which a commit wakes the run loop (see
    /// ``StateMachine/commitWakeThreshold(timerArmed:)``), read by ``wakeOnCommits(_:)``:
    /// a commit the policy cannot act on does not wake the loop.
    private let commitGate = CommitGate()
    /// Failures that can repeat batch after batch log once per 10 s per kind
    /// (``LogThrottle``): a destination that refuses every event, or a store that fails
    /// every settle, does not write a line per batch. Changes of state (a pause, an
    /// isolation starting) always log.
    private let logThrottle = LogThrottle()

    /// The threshold ``wakeOnCommits(_:)`` compares each commit's pending count with.
    private final class CommitGate: Sendable {
        let threshold = Atomic<Int>(1)
    }

    /// Counts the timer's armings and cancels, read by each sleep when it ends.
    private final class Generation: Sendable {
        let value = Atomic<Int>(0)
    }

    public init(
        queue: any DeliveryLog, destination: Destination, settings: SettingsStore, retryPolicy: RetryPolicy = RetryPolicy(),
        clock: C, observer: TrackingObserver? = nil, finalFlushTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "beacon.batcher"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.queue = queue
        self.destination = destination
        self.settings = settings
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.observer = observer
        self.finalFlushTimeout = finalFlushTimeout
        self.logger = logger
        self.random = random
        let current = settings.current
        self.machine = StateMachine(policy: current.policy, isOffline: current.isOffline, retryPolicy: retryPolicy, now: clock.now)
        (wakes, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (timerRequests, timerRequestsContinuation) = AsyncStream.makeStream(of: (C.Instant, Int).self)
        (shutdownSignals, shutdownSignal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let wake = wakeContinuation
        let wentOffline = self.wentOffline
        settings.onChange { settings in
            if settings.isOffline { wentOffline.raise() }
            wake.yield()
        }
    }

    // MARK: Commands

    /// Drains the queue now, whatever the policy (unless offline or paused).
    public func flush() {
        machine.requestFlush()
        wakeContinuation.yield()
    }

    /// Resumes the destination: lifts the operator's pause (``pause()``) and a pause for
    /// refused credentials, cuts a backoff short, and drains what waited (unless offline).
    public func resume() {
        machine.release()
        machine.resume()
        reportDestination()
        wakeContinuation.yield()
    }

    /// Ends a backoff at once: the failed batch is tried again now (unless a pause or
    /// offline holds, which stay; see ``resume()`` for those).
    /// - Returns: whether the destination was backing off.
    @discardableResult
    public func retryNow() -> Bool {
        switch machine.endBackoff() {
        case .noBackoff:
            return false
        case .reportDestination:
            reportDestination()
            wakeContinuation.yield()
            return true
        }
    }

    /// The operator pauses the destination: it sends nothing more (a batch under way
    /// finishes first) and its events stay queued until ``resume()``. Other destinations
    /// go on. The batcher holds it in memory; ``BeaconEngine/pause(destination:)`` also
    /// records it in the queue, so a restarted engine starts the destination paused.
    public func pause() {
        machine.hold()
        wakeContinuation.yield()
    }

    /// Whether the operator paused the destination.
    public var isPausedByOperator: Bool { machine.isHeld }

    /// Asks the run loop to look again (after outside changes).
    public nonisolated func wake() {
        wakeContinuation.yield()
    }

    // MARK: Service

    public func run() async throws {
        // Before anything else: every commit from here on reaches the loop.
        let facts = queue.facts()
        do {
            try await queue.register(destination: destination.name)
        } catch {
            // Reading registers it too; the first read will report a failing store.
            logger.warning("cannot register the destination yet", metadata: ["destination": "\(destination.name)", "error": "\(error)"])
        }
        reportDestination()
        // A store left by an earlier life may hold a backlog: look at it now, as after a
        // commit, so the policy drains it without waiting for a new event.
        wakeContinuation.yield()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runTimers() }
            group.addTask { await self.runSettles() }
            await withGracefulShutdownHandler {
                // The loop, until its wakes end or a shutdown's deadline passes: a batch
                // still in flight then is cancelled (its events stay queued).
                await withTaskGroup(of: Void.self) { loop in
                    loop.addTask { await self.runLoop() }
                    loop.addTask { await self.cutAtShutdownDeadline() }
                    loop.addTask { await self.wakeOnCommits(facts) }
                    await loop.next()
                    loop.cancelAll()
                }
            } onGracefulShutdown: { [shutdownRequested, wakeContinuation, shutdownSignal] in
                shutdownRequested.raise()
                wakeContinuation.yield()
                shutdownSignal.yield()
            }
            shutdownSignal.finish()
            cancelTimer()
            timerRequestsContinuation.finish()
            await finalFlush()
            // Cancelled runs skip the final flush: their settles still land before the run ends.
            await finishSettling()
            for waiter in settles.close() { waiter.resume() }
        }
    }

    /// Stops the run loop after a final drain (what graceful shutdown does). A drain under
    /// way stops after its batch in flight; the final drain takes over from there. Both
    /// end ``finalFlushTimeout`` after this call: a batch still in flight then is cancelled
    /// and stays queued.
    public func beginShutdown() {
        if shutdownStartedAt == nil { shutdownStartedAt = clock.now }
        shutdownSignal.yield()
        switch machine.shutdown() {
        case .finishWakes: wakeContinuation.finish()
        }
    }

    /// Wakes the loop when a commit leaves as many events pending as the policy acts on
    /// (``commitGate``), reading the queue's facts in its own task: a burst of commits
    /// read together wakes the loop once, and one the policy cannot act on not at all.
    private nonisolated func wakeOnCommits(_ facts: QueueFacts) async {
        let name = destination.name
        while let read = await facts.nextFacts() {
            let threshold = commitGate.threshold.load(ordering: .acquiring)
            let reached = read.contains { fact in
                if case .committed(_, let depth) = fact { return depth.pending(for: name) >= threshold }
                return false
            }
            if reached { wakeContinuation.yield() }
        }
        // The facts ended (a queue that closed, or gives none): the loop goes on without
        // commit wakes until it ends, rather than end with them (one task of its group
        // ending ends the loop). A stream never finished waits for the cancellation.
        let (never, keep) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}
        withExtendedLifetime(keep) {}
    }

    private func runLoop() async {
        for await _ in wakes {
            if stopRequested() || Task.isCancelled { break }
            await process()
            updateCommitGate()
        }
    }

    /// Returns ``finalFlushTimeout`` after a shutdown begins, which ends the run loop (see
    /// ``run()``) even while a batch is in flight; cancelled when the loop ends first.
    private func cutAtShutdownDeadline() async {
        for await _ in shutdownSignals {
            // The handler of a graceful shutdown cannot reach the actor: begin it here.
            if shutdownRequested.lower() { beginShutdown() }
            guard let started = shutdownStartedAt else { continue }
            do {
                try await clock.sleep(until: started.advanced(by: finalFlushTimeout), tolerance: nil)
            } catch {
                return  // cancelled: the loop ended first
            }
            logger.notice("shutdown: the drain under way is cut at the final flush's bound", metadata: [
                "destination": "\(destination.name)", "bound": "\(finalFlushTimeout)",
            ])
            return
        }
    }

    /// Whether the run is shutting down; begins first the shutdown a graceful shutdown asked for.
    private func stopRequested() -> Bool {
        if shutdownRequested.lower() { beginShutdown() }
        return machine.isShuttingDown
    }

    // MARK: Loop

    private func process() async {
        // A shutdown ends the drain between two batches: the final drain goes on from there.
        while !Task.isCancelled, !stopRequested() {
            let current = settings.current
            let now = clock.now
            if let deadline = timerDeadline, deadline <= now {
                // The timer fired (or is about to): a new deadline, even an equal one, needs a new timer.
                timerDeadline = nil
            }
            let wentOffline = !current.isOffline && self.wentOffline.lower()
            switch machine.wake(now: now, settings: current, wentOffline: wentOffline) {
            case .none:
                return
            case .goOffline(let dropReadAhead):
                reportDestination()
                cancelTimer()
                if dropReadAhead { await self.dropReadAhead() }
                return
            case .cancelTimer:
                cancelTimer()
                return
            case .armTimer(let deadline, let reporting):
                if let reporting { reportDestination(reporting) }
                armTimer(deadline)
                return
            case .reportDestination:
                reportDestination()
                return
            case .drain(let reporting):
                if let reporting { reportDestination(reporting) }
            case .evaluatePolicy:
                let depth = pending
                switch machine.evaluatePolicy(depth: depth, now: now) {
                case .none:
                    return
                case .cancelTimer:
                    cancelTimer()
                    return
                case .armTimer(let deadline):
                    armTimer(deadline)
                    return
                case .startDrain(let reason):
                    logger.debug("flush", metadata: ["reason": "\(reason.rawValue)", "depth": "\(depth)"])
                }
            }
            guard await sendNext(settings: current) else {
                await finishSettling()
                let caughtUp = machine.drainCaughtUp
                switch machine.drainFinished(now: clock.now) {
                case .reportDestination: reportDestination()
                case .none: break
                }
                // A drain that caught up may leave events (committed meanwhile, or past a
                // read cut by its byte limit): the policy looks at them now, so a count
                // reached drains again and an interval arms its timer, without waiting
                // for another commit. (A drain that found nothing leaves nothing to see.)
                if caughtUp { continue }
                return
            }
            if !machine.isDraining { return }
        }
    }

    /// Events this destination is not done with.
    private var pending: Int { queue.depth.pending(for: destination.name) }

    /// Sets the pending count at which a commit wakes the loop, for the state the loop
    /// left the machine in. A commit that landed after the loop last read the depth was
    /// held to the old threshold: when the new one is lower and already reached, the loop
    /// looks again (with an unchanged threshold a commit that reached it has woken it).
    private func updateCommitGate() {
        let threshold = machine.commitWakeThreshold(timerArmed: timerDeadline != nil) ?? Int.max
        let old = commitGate.threshold.exchange(threshold, ordering: .acquiringAndReleasing)
        if threshold < old, pending >= threshold { wakeContinuation.yield() }
    }

    /// Sends the next batch, or the next wave of batches. Returns `false` when there was
    /// nothing to send (the drain is over once the settles under way have landed).
    private func sendNext(settings: EngineSettings) async -> Bool {
        var next: NextBatch
        let limit: Int
        switch machine.nextBatches(batchSize: settings.batchSize, concurrency: destination.maxConcurrentRequests) {
        case .none, .finishDrain:
            return false
        case .readWave(let start, let limit, let attempt, let batches):
            return await sendWave(from: start, limit: limit, attempt: attempt, batches: batches, settings: settings)
        case .send(let ahead, let aheadLimit):
            next = ahead
            limit = aheadLimit
        case .read(let start, let readLimit, let attempt):
            limit = readLimit
            // From the head: the settles under way must land first, or their events come again.
            if case .head = start { await finishSettling() }
            let events: [QueuedEvent]
            do {
                events = try await queue.peek(for: destination.name, after: start.sequence, limit: limit, maxBytes: settings.maxBatchBytes)
            } catch {
                return readFailed(error)
            }
            guard let batch = makeBatch(events, attempt: attempt, prepare: false) else {
                foundNothing()
                return false
            }
            machine.batchRead(through: batch.last, full: Self.isFull(events, limit: limit, maxBytes: settings.maxBatchBytes))
            next = batch
        }
        var batch = next.batch
        batch.id = queue.makeBatchID()
        next.batch = batch
        let events = next.events
        let outgoing = next.batch.events
        let filtered = next.filtered
        let last = next.last

        let bytes = batch.eventBytes
        var record = BatchRecord(
            id: batch.id, destination: destination.name, startedAt: Timestamp.now(), duration: .zero, events: events.count,
            bytes: bytes, attempt: batch.attempt, status: nil, outcome: .sent, error: nil)
        guard !outgoing.isEmpty else {
            record.outcome = .filtered
            record.error = "all \(events.count) events filtered out by the destination's enrichment"
            switch machine.batchFilteredOut() {
            case .settleKeepingLeases:
                await schedule(BatchSettlement(record: record, filtered: filtered, through: last), continuing: true)
                return true
            case .none:
                return false  // no batch under way: the machine did not read this one
            }
        }

        observer?.report(.batchStarted(
            id: batch.id, destination: destination.name, events: outgoing.count, bytes: bytes, attempt: batch.attempt))
        let start = clock.now
        let sender = destination.sender
        async let sent = sender.send(batch)
        // Above one request at a time this runs only while a split or an isolation is in
        // force, and a batch read ahead would keep the next wave from starting. After a
        // short read the drain ends with this batch: nothing to read ahead.
        let readsAhead = destination.maxConcurrentRequests == 1 && !machine.endsAfterThisBatch
        let ahead = readsAhead ? await readNext(after: last, limit: limit, settings: settings) : nil
        let result = await sent
        record.duration = start.duration(to: clock.now)
        record.status = result.status
        let finished = clock.now
        let decision = DeliveryPlanner.decide(
            result, batch: batch, failures: machine.failures, retryPolicy: retryPolicy, random: random(),
            streak: machine.failureStreak(now: finished))
        let settlement = settlement(of: next, record: record, result: result, decision: decision)
        let readAhead = ahead.map {
            StateMachine.ReadAhead(batch: $0, through: $0.last, full: Self.isFull($0.events, limit: limit, maxBytes: settings.maxBatchBytes))
        }
        switch machine.sendFinished(decision, sent: outgoing.count, readAhead: readAhead, now: finished, batchSize: settings.batchSize) {
        case .settleThenReport(let keepingLeases):
            await scheduleThenReport([settlement], keepingLeases: keepingLeases)
        case .none:
            break  // no batch under way: nothing of it to settle
        }
        return true
    }

    /// Reads up to `batches` consecutive batches (the first from `start`, each next one
    /// after the one before; the leases keep them apart), sends them at once, and once
    /// all have answered settles each on its own, in queue order. Returns `false` when
    /// there was nothing to send.
    private func sendWave(from start: StateMachine.ReadStart, limit: Int, attempt: Int, batches: Int, settings: EngineSettings) async -> Bool {
        // From the head: the settles under way must land first, or their events come again.
        if case .head = start { await finishSettling() }
        // One read for the whole wave, cut into batches in memory as reads one after
        // another would cut it: each at most `limit` events and (past its first event)
        // `maxBatchBytes`. Events read past the last batch come again in the next wave.
        let events: [QueuedEvent]
        do {
            let (count, countOverflow) = limit.multipliedReportingOverflow(by: batches)
            let (bytes, bytesOverflow) = settings.maxBatchBytes.multipliedReportingOverflow(by: batches)
            events = try await queue.peek(
                for: destination.name, after: start.sequence, limit: countOverflow ? limit : count,
                maxBytes: bytesOverflow ? settings.maxBatchBytes : bytes)
        } catch {
            return readFailed(error)
        }
        var wave: [NextBatch] = []
        for chunk in Self.cutWave(events, limit: limit, maxBytes: settings.maxBatchBytes, batches: batches) {
            guard let batch = makeBatch(chunk, attempt: attempt, prepare: false) else { break }
            wave.append(batch)
        }
        guard let through = wave.last?.last else {
            foundNothing()
            return false
        }
        machine.batchRead(
            through: through, full: wave.count == batches && Self.isFull(wave[wave.count - 1].events, limit: limit, maxBytes: settings.maxBatchBytes))

        var records: [BatchRecord] = []
        for index in wave.indices { wave[index].batch.id = queue.makeBatchID() }
        for next in wave {
            let batch = next.batch
            records.append(BatchRecord(
                id: batch.id, destination: destination.name, startedAt: Timestamp.now(), duration: .zero, events: next.events.count,
                bytes: batch.eventBytes, attempt: batch.attempt, status: nil, outcome: .sent, error: nil))
            guard !batch.events.isEmpty else { continue }
            observer?.report(.batchStarted(
                id: batch.id, destination: destination.name, events: batch.events.count, bytes: batch.eventBytes, attempt: batch.attempt))
        }
        let sender = destination.sender
        let answers = await withTaskGroup(of: (Int, SendResult, Duration).self) { [clock] group in
            for (index, next) in wave.enumerated() where !next.batch.events.isEmpty {
                let batch = next.batch
                group.addTask {
                    let start = clock.now
                    let result = await sender.send(batch)
                    return (index, result, start.duration(to: clock.now))
                }
            }
            var answers: [(result: SendResult, duration: Duration)?] = Array(repeating: nil, count: wave.count)
            for await (index, result, duration) in group { answers[index] = (result, duration) }
            return answers
        }

        // Decided in queue order. The first batch sent is the one at the head: it carries
        // the failures and the streak. A later one decides the machine only when every one
        // before it went on (delivered or wholly dead-lettered), which clears both.
        let finished = clock.now
        var results: [StateMachine.WaveResult] = []
        var settlements: [BatchSettlement] = []
        var sentBefore = false
        for (index, next) in wave.enumerated() {
            var record = records[index]
            guard let answer = answers[index] else {
                record.outcome = .filtered
                record.error = "all \(next.events.count) events filtered out by the destination's enrichment"
                settlements.append(BatchSettlement(record: record, filtered: next.filtered, through: next.last))
                results.append(.filtered(through: next.last))
                continue
            }
            record.duration = answer.duration
            record.status = answer.result.status
            let decision = DeliveryPlanner.decide(
                answer.result, batch: next.batch, failures: sentBefore ? 0 : machine.failures, retryPolicy: retryPolicy,
                random: random(), streak: sentBefore ? FailureStreak() : machine.failureStreak(now: finished))
            sentBefore = true
            settlements.append(settlement(of: next, record: record, result: answer.result, decision: decision))
            results.append(.sent(decision, events: next.batch.events.count, through: next.last))
        }
        switch machine.waveFinished(results, now: finished, batchSize: settings.batchSize) {
        case .settleThenReport(let keepingLeases):
            await scheduleThenReport(settlements, keepingLeases: keepingLeases)
        case .none:
            break  // no wave under way: nothing of it to settle
        }
        return true
    }

    /// `events`, in queue order, cut into at most `batches` batches of at most `limit`
    /// events and at most `maxBytes` of payload each (a first event larger than that goes
    /// alone, as a read would return it); what does not fit is left out.
    static func cutWave(_ events: [QueuedEvent], limit: Int, maxBytes: Int, batches: Int) -> [[QueuedEvent]] {
        var wave: [[QueuedEvent]] = []
        var current: [QueuedEvent] = []
        var bytes = 0
        for event in events {
            let size = event.payloadCount
            if !current.isEmpty, current.count >= max(1, limit) || bytes + size > maxBytes {
                wave.append(current)
                if wave.count >= batches { return wave }
                current = []
                bytes = 0
            }
            current.append(event)
            bytes += size
        }
        if !current.isEmpty, wave.count < batches { wave.append(current) }
        return wave
    }

    /// The read found nothing: the drain ends (the caller ends it), or, past an event
    /// that fails alone, a backoff starts.
    private func foundNothing() {
        switch machine.readFoundNothing(now: clock.now, random: random()) {
        case .backOff(let until):
            reportDestination(.backingOff(until: until))
            armTimer(until)
        case .finishDrain, .none:
            break  // the caller ends the drain
        }
    }

    /// A read from the queue failed: back off (a read cancelled because the engine is
    /// stopping is no fault of the queue: nothing more is sent). Returns whether the
    /// drain goes on.
    private func readFailed(_ error: StorageError) -> Bool {
        if Task.isCancelled { return false }
        logger.log(
            .error, "cannot read the queue", kind: "read failed", throttle: logThrottle,
            metadata: ["destination": "\(destination.name)", "error": "\(error)"])
        observer?.report(.problem("cannot read the queue: \(error)"))
        switch machine.readFailed(now: clock.now, random: random()) {
        case .armTimer(let until): armTimer(until)
        case .none: break
        }
        return true
    }

    /// Schedules `settlements` in order, each after the one before; unless the drain goes
    /// on keeping the leases, waits for them to land (the last releases the leases).
    /// Then reports, and arms the timer of a backoff.
    private func scheduleThenReport(_ settlements: [BatchSettlement], keepingLeases: Bool) async {
        for (index, settlement) in settlements.enumerated() {
            // Going on after these batches keeps the leases; reading from the head again releases them.
            await schedule(settlement, continuing: keepingLeases || index < settlements.count - 1)
        }
        if !keepingLeases { await finishSettling() }
        switch machine.settleScheduled() {
        case .armTimer(let until, let reporting):
            reportDestination(reporting)
            armTimer(until)
        case .reportDestination:
            reportDestination()
        }
    }

    /// What a finished send does to the queue as `decision` says, with `record` completed
    /// (outcome and error); logs failures and dead letters.
    private func settlement(of next: NextBatch, record: BatchRecord, result: SendResult, decision: DeliveryDecision) -> BatchSettlement {
        var record = record
        let batch = next.batch
        var settlement = BatchSettlement(record: record, filtered: next.filtered, through: next.last)
        switch decision {
        case .delivered:
            // The later copies of a delivered `messageId` are delivered with it.
            settlement.delivered = (batch.events.map(\.sequence) + next.duplicates.map(\.sequence)).sorted()
        case .retry(let delay, let reason, _):
            record.outcome = .retry
            record.error = reason
            logger.log(.warning, "send failed; retrying", kind: "retry", throttle: logThrottle, metadata: [
                "batch_id": "\(batch.id)", "destination": "\(destination.name)", "error": "\(reason)",
                "retry_in": "\(delay)", "attempt": "\(batch.attempt)",
            ])
        case .deadLetter(let rejected):
            record.outcome = .deadLettered
            record.error = rejected.count == 1 ? rejected[0].reason : "\(rejected.count) events refused: \(rejected[0].reason)"
            let now = Timestamp.now()
            settlement.deadLetters = rejected.map {
                DeadLetter(event: $0.event, reason: $0.reason, destination: destination.name, status: result.status, failedAt: now)
            }
            // The later copies of a refused `messageId` are refused with it; those of an event
            // that was not refused stay queued and go again with it.
            let reasons = Dictionary(rejected.map { ($0.event.messageIdKey, $0.reason) }, uniquingKeysWith: { first, _ in first })
            for copy in next.duplicates {
                guard let reason = reasons[copy.messageIdKey] else { continue }
                settlement.deadLetters.append(
                    DeadLetter(event: copy, reason: reason, destination: destination.name, status: result.status, failedAt: now))
            }
            logger.log(.error, "events refused for good; dead-lettered", kind: "dead letter", throttle: logThrottle, metadata: [
                "batch_id": "\(batch.id)", "destination": "\(destination.name)", "events": "\(rejected.count)",
                "reason": "\(rejected[0].reason)",
            ])
        case .split:
            record.outcome = .split
            record.error = result.status == 413 ? "too large (413): splitting" : "refused (400): splitting to isolate"
        case .isolate(let limit, let reason):
            record.outcome = .split
            record.error = "\(reason); splitting to isolate"
            logger.error("retries ran out; splitting the batch to isolate the event that fails", metadata: [
                "batch_id": "\(batch.id)", "destination": "\(destination.name)", "error": "\(reason)", "limit": "\(limit)",
            ])
        case .probePast(let reason):
            record.outcome = .retry
            record.error = reason
            logger.log(
                .warning, "an event fails alone; sending the events after it to tell a failing event from a failing destination",
                kind: "probe", throttle: logThrottle,
                metadata: ["batch_id": "\(batch.id)", "destination": "\(destination.name)", "error": "\(reason)"])
        case .pause(let reason):
            record.outcome = .paused
            record.error = reason
            logger.error("destination refused the credentials; paused", metadata: [
                "destination": "\(destination.name)", "error": "\(reason)",
            ])
        }
        settlement.record = record
        return settlement
    }

    /// A batch ready to go: the events read, what the enrichment made of them.
    private struct NextBatch {
        /// The events as read from the queue.
        var events: [QueuedEvent]
        /// What goes to the sender (enriched, maybe prepared).
        var batch: OutgoingBatch
        /// Events the enrichment filtered out.
        var filtered: [Int64]
        /// Later copies of a `messageId` already in the batch (a client that resent a
        /// request whose answer it lost): left out of the request, where a collector would
        /// refuse the repeat, and settled with the copy that went.
        var duplicates: [QueuedEvent] = []
        /// The last sequence read.
        var last: Int64
    }

    /// Enriches `events` into a batch (`nil` when there are none), prepared by the sender
    /// when `prepare` is set.
    private func makeBatch(_ events: [QueuedEvent], attempt: Int, prepare: Bool) -> NextBatch? {
        guard let last = events.last?.sequence else { return nil }
        let (enriched, filtered) = enrich(events)
        let (send, duplicates) = Self.firstCopies(enriched)
        // Its id is given as it is sent (``sendOne(_:settings:)``, ``sendWave``): a batch
        // read ahead and dropped after a failure leaves no gap in the history's ids.
        var batch = OutgoingBatch(id: 0, events: send, attempt: attempt)
        if prepare, !send.isEmpty { batch = destination.sender.prepare(batch) }
        return NextBatch(events: events, batch: batch, filtered: filtered, duplicates: duplicates, last: last)
    }

    /// Whether a read that returned `events` came back full: `limit` events, or past half
    /// of `maxBytes` (where the next event may not have fitted). A read that is not full
    /// took every event queued at the time, and ends the drain (see ``StateMachine``).
    static func isFull(_ events: [QueuedEvent], limit: Int, maxBytes: Int) -> Bool {
        events.count >= limit || events.reduce(0) { $0 + $1.payloadCount } > maxBytes / 2
    }

    /// `events` with each `messageId` once (its first copy, in queue order), and the later
    /// copies. A queue holds two copies when a client resent a request whose answer it
    /// lost (an agent killed between its commit and its 200); one request must not carry
    /// both, as a collector refuses a batch that repeats a `messageId`.
    static func firstCopies(_ events: [QueuedEvent]) -> (first: [QueuedEvent], later: [QueuedEvent]) {
        // Copies are rare: the batch goes out as it was read unless one turns up.
        guard let copy = MessageIdTable.firstRepeat(in: events) else { return (events, []) }
        var seen = Set(events[..<copy].map(\.messageIdKey))
        var first = Array(events[..<copy])
        var later = [events[copy]]
        first.reserveCapacity(events.count - 1)
        for event in events[(copy + 1)...] {
            if seen.insert(event.messageIdKey).inserted {
                first.append(event)
            } else {
                later.append(event)
            }
        }
        return (first, later)
    }

    /// The events to send after the destination's enrichment, and those it filtered out.
    private func enrich(_ events: [QueuedEvent]) -> (send: [QueuedEvent], filtered: [Int64]) {
        guard !destination.enrichment.isEmpty else { return (events, []) }
        var send: [QueuedEvent] = []
        var filtered: [Int64] = []
        send.reserveCapacity(events.count)
        for event in events {
            switch destination.enrichment.apply(to: event.payload) {
            case .send(let payload):
                var enriched = event
                enriched.payload = payload
                send.append(enriched)
            case .filtered(let reason):
                logger.trace("event filtered out", metadata: [
                    "destination": "\(destination.name)", "message_id": "\(event.messageId)", "reason": "\(reason)",
                ])
                filtered.append(event.sequence)
            }
        }
        return (send, filtered)
    }

    /// Reads and prepares the batch after `sequence` while the current one is in flight.
    /// A failure only costs the overlap: the next batch is then read from the head.
    private func readNext(after sequence: Int64, limit: Int, settings: EngineSettings) async -> NextBatch? {
        do {
            let events = try await queue.peek(for: destination.name, after: sequence, limit: limit, maxBytes: settings.maxBatchBytes)
            return makeBatch(events, attempt: 1, prepare: true)
        } catch {
            logger.debug("reading ahead failed", metadata: ["destination": "\(destination.name)", "error": "\(error)"])
            return nil
        }
    }

    /// Settles a batch after the settle before it. When the drain does not go on after
    /// this batch (it will read from the head), the leases are released once this settle
    /// is done.
    private func schedule(_ settlement: BatchSettlement, continuing: Bool) async {
        // A settle line that is full (a store refusing writes) holds the sending back here.
        while !settles.hasRoom {
            await withCheckedContinuation { settles.waitForRoom($0) }
        }
        switch settles.append(SettleLine.Item(settlement: settlement, continuing: continuing)) {
        case .queued(let wake):
            wake?.resume()
        case .closed:
            // Only a drain after the run ended could get here, and none does; were one
            // to, its settle lands here, before the drain goes on.
            await settle(settlement, releasingLeases: !continuing)
        }
    }

    /// The settle loop, a child of ``run()``: runs the settles handed off, one at a time,
    /// in order, until the run closes the line. A cancelled run does not end it early:
    /// its waits and the queue's write transactions are not cancelled, so every settle
    /// handed off lands (a batch the collector took is not sent again on the next start).
    private func runSettles() async {
        while true {
            switch settles.next() {
            case .settle(let item, let room):
                for waiter in room { waiter.resume() }
                await settle(item.settlement, releasingLeases: !item.continuing)
            case .wait(let idle):
                for waiter in idle { waiter.resume() }
                await withCheckedContinuation { settles.waitForWork($0) }
            case .end(let idle):
                for waiter in idle { waiter.resume() }
                return
            }
        }
    }

    /// Lets go of the batch read ahead (its `sentAt` would go stale while sending waits) and
    /// of where the drain was, which the machine forgot: the next batch is read from the head.
    private func dropReadAhead() async {
        await finishSettling()
        queue.releaseLeases(for: destination.name)
    }

    /// Waits for the settles handed off so far.
    private func finishSettling() async {
        await withCheckedContinuation { settles.waitUntilEmpty($0) }
    }

    /// Stores a batch's result, retrying with a backoff while the store refuses the write
    /// (a full disk, a read-only file): sending goes on meanwhile only as far as the
    /// settle line has room (``SettleLine/capacity``), so a store that cannot be written
    /// stops the sending instead of having the same batch sent again and again. It gives
    /// up only when the run is cancelled or the shutdown's bound passed: the events then
    /// stay queued and go again from the head (the collector's dedup makes that harmless).
    private func settle(_ settlement: BatchSettlement, releasingLeases: Bool) async {
        var failures = 0
        var delay = Self.settleRetryFirstDelay
        while true {
            do {
                try await queue.settle(settlement)
                if failures > 0 {
                    logger.notice("batch settled after the store refused it", metadata: [
                        "batch_id": "\(settlement.record.id)", "failed_attempts": "\(failures)",
                    ])
                }
                break
            } catch {
                failures += 1
                if failures == 1 {
                    observer?.report(.problem("cannot settle batch \(settlement.record.id): \(error); retrying"))
                }
                logger.log(
                    .error, "cannot settle batch; retrying", kind: "settle failed", throttle: logThrottle,
                    metadata: ["batch_id": "\(settlement.record.id)", "error": "\(error)", "failed_attempts": "\(failures)"])
                guard await waitToSettleAgain(for: delay) else {
                    machine.settleDidFail()
                    logger.warning("settle given up at the shutdown: the batch's events stay queued and go again", metadata: [
                        "batch_id": "\(settlement.record.id)", "failed_attempts": "\(failures)",
                    ])
                    break
                }
                delay = min(delay * 2, Self.settleRetryMaxDelay)
            }
        }
        if releasingLeases { queue.releaseLeases(for: destination.name) }
        observer?.report(.batchFinished(
            settlement.record, delivered: settlement.delivered.count, deadLettered: settlement.deadLetters.count))
        reportDestination()
    }

    /// The first wait before a failed settle goes again; each failure doubles it, up to
    /// ``settleRetryMaxDelay``.
    static var settleRetryFirstDelay: Duration { .milliseconds(50) }
    static var settleRetryMaxDelay: Duration { .seconds(5) }

    /// Waits `delay` before a settle goes again. `false`: it must not (the run was
    /// cancelled, or a shutdown's bound passed or comes first).
    private func waitToSettleAgain(for delay: Duration) async -> Bool {
        if Task.isCancelled { return false }
        var until = clock.now.advanced(by: delay)
        if let started = shutdownStartedAt {
            let bound = started.advanced(by: finalFlushTimeout)
            if clock.now >= bound { return false }
            until = min(until, bound)
        }
        do {
            try await clock.sleep(until: until, tolerance: nil)
        } catch {
            return false  // cancelled
        }
        return !Task.isCancelled
    }

    /// Sends what is queued until ``finalFlushTimeout`` after the shutdown began: first
    /// waits for events still in memory to be committed, then drains. Skipped when
    /// offline, paused, or when the run was cancelled rather than shut down gracefully.
    private func finalFlush() async {
        let current = settings.current
        guard !Task.isCancelled else { return }
        let deadline = (shutdownStartedAt ?? clock.now).advanced(by: finalFlushTimeout)
        switch machine.finalFlush(isOffline: current.isOffline, deadline: deadline) {
        case .finalDrain: break
        case .none: return
        case .keepsServersWait(let until):
            logger.notice("final flush skipped: the destination's server asked to wait past the shutdown (Retry-After); its events stay queued for the next start", metadata: [
                "destination": "\(destination.name)", "events": "\(queue.depth.pending(for: destination.name))",
                "asked_for": "\(clock.now.duration(to: until))",
            ])
            return
        }
        // The batch in flight at the shutdown's start may have used the whole bound.
        if clock.now < deadline {
            await drain(until: deadline, settings: current)
        }
        await finishSettling()
        let left = queue.depth
        if left.pending(for: destination.name) + left.buffered > 0 {
            logger.notice("final flush left events queued for the next start", metadata: [
                "destination": "\(destination.name)", "events": "\(left.pending(for: destination.name))",
                "in_memory": "\(left.buffered)",
            ])
        }
    }

    /// Waits for the events still in memory to be committed, then drains, until `deadline`.
    private func drain(until deadline: C.Instant, settings current: EngineSettings) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.queue.waitForPendingWrites()
                await self.drainUntilEmpty(settings: current)
            }
            group.addTask { [clock] in
                do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }  // cancelled: the drain finished first
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func drainUntilEmpty(settings: EngineSettings) async {
        while !Task.isCancelled, pending > 0 || machine.hasReadAhead, machine.isDraining {
            guard await sendNext(settings: settings) else { break }
        }
        await finishSettling()
    }

    // MARK: Timer and reporting

    private func armTimer(_ deadline: C.Instant) {
        if timerDeadline == deadline { return }
        timerDeadline = deadline
        let generation = timerGeneration.value.add(1, ordering: .acquiringAndReleasing).newValue
        timerRequestsContinuation.yield((deadline, generation))
    }

    private func cancelTimer() {
        timerGeneration.value.add(1, ordering: .acquiringAndReleasing)
        timerDeadline = nil
    }

    /// Sleeps until each deadline armed and wakes the loop then, unless the timer was
    /// armed again or cancelled meanwhile. A stale sleep runs on to its deadline without
    /// waking anything; the rest are cancelled when the run ends.
    private func runTimers() async {
        let wake = wakeContinuation
        let generation = timerGeneration
        await withDiscardingTaskGroup { group in
            for await (deadline, armed) in timerRequests {
                group.addTask { [clock] in
                    do {
                        try await clock.sleep(until: deadline, tolerance: nil)
                    } catch {
                        return  // cancelled: the run ended
                    }
                    if generation.value.load(ordering: .acquiring) == armed { wake.yield() }
                }
            }
            group.cancelAll()
        }
    }

    /// Reports the destination as the machine has it (or as `reported`, what it had just before).
    private func reportDestination(_ reported: StateMachine.Reported? = nil) {
        guard let observer else { return }
        observer.report(.destination(DestinationStatus(
            name: destination.name, endpoint: destination.sender.endpointDescription, depth: pending,
            state: status(of: reported ?? machine.reported), consecutiveFailures: machine.failures, lastError: machine.lastError)))
    }

    /// The destination's state as the observer has it: sending while a drain is under
    /// way, idle once it ended (whatever is left waits for the policy), backing off with
    /// the wall-clock time of the next try, paused, or offline.
    public var state: DestinationStatus.State { status(of: machine.reported) }

    private func status(of reported: StateMachine.Reported) -> DestinationStatus.State {
        switch reported {
        case .offline:
            return .offline
        case .held:
            return .pausedByOperator
        case .paused(let reason):
            return .paused(reason: reason)
        case .backingOff(let until):
            // Converted once per backoff: every report of it names the same wall-clock time.
            if let known = backoffWallTime, known.until == until { return .backingOff(until: known.wall) }
            let wait = clock.now.duration(to: until)
            let wall = Timestamp(millisecondsSince1970: Timestamp.now().millisecondsSince1970 + wait.inMilliseconds)
            backoffWallTime = (until, wall)
            return .backingOff(until: wall)
        case .idle:
            // Between two batches of a drain the machine reports idle; the drain is not over.
            return machine.isDraining ? .sending : .idle
        }
    }
}

/// A flag raised from any thread and lowered by its owner.
private final class Flag: Sendable {
    private let value = Mutex(false)

    func raise() { value.withLock { $0 = true } }

    /// Lowers the flag; returns whether it was raised.
    func lower() -> Bool {
        value.withLock { raised in
            defer { raised = false }
            return raised
        }
    }
}

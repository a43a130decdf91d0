import BeaconWire
import Logging
import ServiceLifecycle

/// One place batches go: a name and a sender.
public struct Destination: Sendable {
    /// A short name for logs, history and the dashboard (`default`, `analytics`...).
    public var name: String
    /// How batches get there.
    public var sender: any EventSender

    public init(name: String = "default", sender: any EventSender) {
        self.name = name
        self.sender = sender
    }
}

/// Cuts the queue into batches and sends them: an actor run as a service.
///
/// - Evaluates the flush policy on every commit and on its clock (``FlushScheduler``).
/// - Once triggered, drains: batch after batch, at once, until the queue is empty or a
///   send fails. At most one batch is in flight.
/// - Settles each batch in one transaction as ``DeliveryPlanner`` decides: delivered
///   events leave, refused ones go to the dead-letter table, the rest wait for a backoff.
/// - On graceful shutdown, a final drain bounded by ``finalFlushTimeout``.
public actor Batcher<C: Clock>: Service where C.Duration == Duration {
    /// How long the final drain on shutdown may take. Default 5 s.
    public let finalFlushTimeout: Duration

    private let queue: any EventQueue
    private let destination: Destination
    private let settings: SettingsStore
    private let retryPolicy: RetryPolicy
    private let clock: C
    private let observer: TrackingObserver?
    private let logger: Logger
    private let random: @Sendable () -> Double

    private let wakes: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    private var scheduler: FlushScheduler<C.Instant>
    private var timer: Task<Void, Never>?
    private var timerDeadline: C.Instant?
    private var draining = false
    private var failures = 0
    private var backoffUntil: C.Instant?
    private var pausedReason: String?
    private var splitLimit: Int?
    private var wasOffline: Bool
    private var shuttingDown = false
    private var lastError: String?

    public init(
        queue: any EventQueue, destination: Destination, settings: SettingsStore, retryPolicy: RetryPolicy = RetryPolicy(),
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
        self.scheduler = FlushScheduler(policy: current.policy, now: clock.now)
        self.wasOffline = current.isOffline
        (wakes, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let wake = wakeContinuation
        queue.addListener { event in
            if case .committed = event { wake.yield() }
        }
        settings.onChange { _ in wake.yield() }
    }

    // MARK: Commands

    /// Drains the queue now, whatever the policy (unless offline or paused).
    public func flush() {
        scheduler.requestFlush()
        wakeContinuation.yield()
    }

    /// Resumes a destination paused by refused credentials, and retries at once.
    public func resume() {
        pausedReason = nil
        backoffUntil = nil
        reportDestination()
        wakeContinuation.yield()
    }

    /// Asks the run loop to look again (after outside changes).
    public nonisolated func wake() {
        wakeContinuation.yield()
    }

    // MARK: Service

    public func run() async throws {
        reportDestination()
        await withGracefulShutdownHandler {
            for await _ in wakes {
                if shuttingDown || Task.isCancelled { break }
                await process()
            }
        } onGracefulShutdown: {
            Task { await self.beginShutdown() }
        }
        timer?.cancel()
        await finalFlush()
    }

    /// Stops the run loop after a final drain (what graceful shutdown does).
    public func beginShutdown() {
        shuttingDown = true
        wakeContinuation.finish()
    }

    // MARK: Loop

    private func process() async {
        while !Task.isCancelled {
            let current = settings.current
            let now = clock.now
            if let deadline = timerDeadline, deadline <= now {
                // The timer fired (or is about to): a new deadline, even an equal one, needs a new timer.
                timer = nil
                timerDeadline = nil
            }
            if current.policy != scheduler.policy { scheduler.setPolicy(current.policy, now: now) }
            if current.isOffline {
                if !wasOffline { wasOffline = true; reportDestination() }
                cancelTimer()
                return
            }
            if wasOffline {
                // Back online: drain the backlog whatever the policy.
                wasOffline = false
                draining = true
                reportDestination()
            }
            if pausedReason != nil { return }
            if let until = backoffUntil {
                if now < until {
                    armTimer(until)
                    return
                }
                backoffUntil = nil
            }
            let depth = queue.depth.events
            if !draining {
                switch scheduler.evaluate(depth: depth, now: now) {
                case .idle:
                    cancelTimer()
                    return
                case .wait(let deadline):
                    armTimer(deadline)
                    return
                case .flush(let reason):
                    logger.debug("flush", metadata: ["reason": "\(reason.rawValue)", "depth": "\(depth)"])
                    draining = true
                }
            }
            guard await sendOne(settings: current) else {
                draining = false
                scheduler.didFlush(now: clock.now)
                reportDestination()
                return
            }
            if backoffUntil != nil || pausedReason != nil { return }
        }
    }

    /// Sends the batch at the head. Returns `false` when there was nothing to send.
    private func sendOne(settings: EngineSettings, deadline: C.Instant? = nil) async -> Bool {
        let limit = min(settings.batchSize, splitLimit ?? .max)
        let events: [QueuedEvent]
        do {
            events = try await queue.peek(limit: limit, maxBytes: settings.maxBatchBytes)
        } catch {
            logger.error("cannot read the queue", metadata: ["error": "\(error)"])
            observer?.report(.problem("cannot read the queue: \(error)"))
            failures += 1
            backoffUntil = clock.now.advanced(by: retryPolicy.delay(afterFailures: failures, retryAfter: nil, random: random()))
            armTimer(backoffUntil!)
            return true
        }
        guard !events.isEmpty else { return false }

        let batch = OutgoingBatch(id: queue.makeBatchID(), events: events, attempt: failures + 1)
        let bytes = batch.eventBytes
        observer?.report(.batchStarted(
            id: batch.id, destination: destination.name, events: events.count, bytes: bytes, attempt: batch.attempt))
        let startedAt = Timestamp.now()
        let start = clock.now
        let result = await destination.sender.send(batch)
        let duration = start.duration(to: clock.now)
        let decision = DeliveryPlanner.decide(result, batch: batch, failures: failures, retryPolicy: retryPolicy, random: random())

        var record = BatchRecord(
            id: batch.id, destination: destination.name, startedAt: startedAt, duration: duration, events: events.count,
            bytes: bytes, attempt: batch.attempt, status: result.status, outcome: .sent, error: nil)
        var settlement = BatchSettlement(record: record)
        switch decision {
        case .delivered:
            settlement.delivered = events.map(\.sequence)
            failures = 0
            lastError = nil
            if let limit = splitLimit {
                let grown = limit * 2
                splitLimit = grown >= settings.batchSize ? nil : grown
            }
        case .retry(let delay, let reason):
            record.outcome = .retry
            record.error = reason
            failures += 1
            lastError = reason
            backoffUntil = clock.now.advanced(by: delay)
            logger.warning("send failed; retrying", metadata: [
                "batch_id": "\(batch.id)", "destination": "\(destination.name)", "error": "\(reason)",
                "retry_in": "\(delay)", "attempt": "\(batch.attempt)",
            ])
        case .deadLetter(let rejected):
            record.outcome = .deadLettered
            record.error = rejected.count == 1 ? rejected[0].reason : "\(rejected.count) events refused: \(rejected[0].reason)"
            failures = 0
            let now = Timestamp.now()
            settlement.deadLetters = rejected.map {
                DeadLetter(event: $0.event, reason: $0.reason, destination: destination.name, status: result.status, failedAt: now)
            }
            logger.error("events refused for good; dead-lettered", metadata: [
                "batch_id": "\(batch.id)", "destination": "\(destination.name)", "events": "\(rejected.count)",
                "reason": "\(rejected[0].reason)",
            ])
        case .split(let newLimit):
            record.outcome = .split
            record.error = result.status == 413 ? "too large (413): splitting" : "refused (400): splitting to isolate"
            splitLimit = newLimit
        case .pause(let reason):
            record.outcome = .paused
            record.error = reason
            pausedReason = reason
            lastError = reason
            logger.error("destination refused the credentials; paused", metadata: [
                "destination": "\(destination.name)", "error": "\(reason)",
            ])
        }
        settlement.record = record
        do {
            try await queue.settle(settlement)
        } catch {
            // The send happened but its result is not stored: the events stay queued and
            // go again; the collector's dedup by messageId makes that harmless.
            logger.error("cannot settle batch", metadata: ["batch_id": "\(batch.id)", "error": "\(error)"])
            observer?.report(.problem("cannot settle batch \(batch.id): \(error)"))
        }
        observer?.report(.batchFinished(
            record, delivered: settlement.delivered.count, deadLettered: settlement.deadLetters.count))
        reportDestination()
        if let until = backoffUntil { armTimer(until) }
        return true
    }

    /// Sends what is queued, bounded by ``finalFlushTimeout``: first waits for events
    /// still in memory to be committed, then drains. Skipped when offline, paused, or
    /// when the run was cancelled rather than shut down gracefully.
    private func finalFlush() async {
        let current = settings.current
        guard !Task.isCancelled, !current.isOffline, pausedReason == nil else { return }
        let deadline = clock.now.advanced(by: finalFlushTimeout)
        backoffUntil = nil
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
        let left = queue.depth
        if left.events + left.buffered > 0 {
            logger.notice("final flush left events queued for the next start", metadata: [
                "events": "\(left.events)", "in_memory": "\(left.buffered)",
            ])
        }
    }

    private func drainUntilEmpty(settings: EngineSettings) async {
        while !Task.isCancelled, queue.depth.events > 0, backoffUntil == nil, pausedReason == nil {
            guard await sendOne(settings: settings) else { return }
        }
    }

    // MARK: Timer and reporting

    private func armTimer(_ deadline: C.Instant) {
        if timerDeadline == deadline, timer != nil { return }
        timer?.cancel()
        timerDeadline = deadline
        let wake = wakeContinuation
        timer = Task { [clock] in
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
                wake.yield()
            } catch {
                return  // cancelled: a newer deadline replaced this one
            }
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func reportDestination() {
        guard let observer else { return }
        let state: DestinationStatus.State
        if settings.current.isOffline {
            state = .offline
        } else if let reason = pausedReason {
            state = .paused(reason: reason)
        } else if let until = backoffUntil {
            let wait = clock.now.duration(to: until)
            state = .backingOff(until: Timestamp(millisecondsSince1970: Timestamp.now().millisecondsSince1970 + wait.microseconds / 1000))
        } else {
            state = .idle
        }
        observer.report(.destination(DestinationStatus(
            name: destination.name, endpoint: destination.sender.endpointDescription, depth: queue.depth.events,
            state: state, consecutiveFailures: failures, lastError: lastError)))
    }
}

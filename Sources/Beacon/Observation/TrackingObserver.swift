import BeaconWire
import DequeModule
import Synchronization

/// Watches the engine: receives every step as an ``EngineEvent``, keeps aggregates and
/// ring buffers, and publishes immutable ``EngineSnapshot``s.
///
/// The queue's facts (``QueueFacts``) come from the queue's own stream, which ``run()``
/// reads; the batchers' steps through ``report(_:)``, which never waits: it is
/// `nonisolated` and only appends to an inbox that ``run()`` empties. Reports that arrive
/// together are applied together and published as one snapshot, so a busy engine does
/// not wake subscribers once per step.
/// A commit only moves counters: while nobody is subscribed it does not wake the
/// observer, and is applied by whatever comes next (a read of ``snapshot``, a
/// subscription, another report, the tick), so what is read is never behind.
/// Subscribers get snapshots through
/// `AsyncStream(bufferingPolicy: .bufferingNewest(1))`, so a slow reader sees the latest
/// picture and never slows the engine.
///
/// ```swift
/// for await snapshot in await observer.snapshots() {
///     print(snapshot.depth, snapshot.totals.delivered)
/// }
/// ```
public actor TrackingObserver {
    /// Recent batches kept. Default 200.
    public let historyLimit: Int
    /// Depth samples kept (one per tick). Default 120.
    public let depthSamples: Int
    /// Ticks the rates are averaged over. Default 5.
    public let rateWindow: Int

    /// Reports not yet applied, in order, and whether the run loop was woken for them.
    private let inbox = Mutex<Inbox>(Inbox())
    /// Subscribers now, read by ``report(_:)`` off the actor; a change between none and
    /// some also tells the queue's stream whether commits alone wake the observer.
    private let subscriberCount = Atomic<Int>(0)
    private let watchers = Mutex<Int>(0)
    /// The queue's facts (``EventQueue/facts(wake:)``), when the observer follows a queue.
    private let queueFacts: QueueFacts?
    /// Raised when the inbox needs applying.
    private let wakes: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// Raised when a destination's oldest pending event may have changed (events left
    /// it, or arrived when it had none): read again soon, not at the next tick.
    private let oldestChanges: AsyncStream<Void>
    private let oldestChangeContinuation: AsyncStream<Void>.Continuation
    /// Whether an oldest pending event shown may no longer be the oldest.
    private var oldestIsStale = false
    /// When the oldest pending events were last read (the observer's wall clock).
    private var oldestReadAt: Timestamp?
    private let tickInterval: Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private var subscribers: [Int: AsyncStream<EngineSnapshot>.Continuation] = [:]
    private var nextSubscriber = 0

    private var current: EngineSnapshot
    private var batches = Deque<BatchRecord>()
    private var depthHistory = Deque<Int>()
    /// The last ten minutes, a point per ten ticks' worth of time.
    private var trend: Trend
    private var rateSamples = Deque<(accepted: Int, delivered: Int)>()
    /// Each destination's delivered counter, one sample per tick (as ``rateSamples``).
    private var destinationSamples = Deque<[String: Int]>()
    private var latencies = LatencyWindow(capacity: 1000)
    private var baseTotals: QueueTotals
    /// The last depth applied: a report it overtook is not applied after it.
    private var appliedDepth: QueueDepth?
    private let depthProvider: (@Sendable () -> QueueDepth)?
    private let oldestPendingProvider: (@Sendable () async -> [String: Timestamp]?)?
    private let deadLettersProvider: (@Sendable () async -> [DeadLetterSummary]?)?
    private let wallClock: @Sendable () -> Timestamp
    /// The disk under the store (``StoreDisk/read(storePath:)``), read on every tick.
    private let diskProvider: (@Sendable () -> StoreDisk?)?
    /// The tracker's counts per event name (``Tracker/eventNames``), read on every tick.
    private let eventNamesProvider: (@Sendable () -> EventNameCounts)?
    /// The listed names' counts, one sample per tick (as ``rateSamples``).
    private var nameSamples = Deque<[String: Int]>()
    /// How long events may wait with no delivery before a destination is marked stalled.
    public let stallThreshold: Duration

    /// An observer for an engine whose queue starts at `depth`.
    /// - Parameters:
    ///   - depthProvider: reads the queue's counts (cheap, no I/O); polled on every tick,
    ///     so the snapshot stays live while no commit happens (a failing store).
    ///   - sleep: how ticks wait (inject a manual clock's sleep in tests).
    ///   - oldestPendingProvider: when each destination's oldest pending event was
    ///     committed (``EventQueue/oldestPending()``); asked on every tick (`nil`: unknown now).
    ///   - deadLettersProvider: the newest dead letters (at most
    ///     ``DeadLetterSummary/snapshotLimit``); asked on every tick (`nil`: unknown now).
    ///   - wallClock: the time snapshots are taken at, ages and stalls measured against.
    ///   - stallThreshold: see ``DestinationStatus/isStalled(at:threshold:)``.
    ///   - queueBounds: how much the queue may hold, for ``EngineSnapshot/isQueueFull``.
    ///   - queueFacts: the queue's facts, subscribed with ``QueueFacts/Wake/notForCommits``
    ///     (the observer makes commits wake it while it has subscribers). With them the
    ///     observer takes its depth, counters and rates from the stream and asks the
    ///     providers only after a fact changed what they read (and `depthProvider` only
    ///     while the store fails, when events wait in memory with no commit); without
    ///     them, every tick asks all three.
    public init(
        settings: EngineSettings, depth: QueueDepth, storePath: String, endpoint: String,
        depthProvider: (@Sendable () -> QueueDepth)? = nil,
        historyLimit: Int = 200, depthSamples: Int = 120, rateWindow: Int = 5, tickInterval: Duration = .seconds(1),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        oldestPendingProvider: (@Sendable () async -> [String: Timestamp]?)? = nil,
        deadLettersProvider: (@Sendable () async -> [DeadLetterSummary]?)? = nil,
        wallClock: @escaping @Sendable () -> Timestamp = { .now() },
        stallThreshold: Duration = DestinationStatus.stallThreshold, queueBounds: QueueBounds? = nil,
        queueFacts: QueueFacts? = nil, eventNamesProvider: (@Sendable () -> EventNameCounts)? = nil,
        diskProvider: (@Sendable () -> StoreDisk?)? = nil
    ) {
        self.diskProvider = diskProvider
        self.queueFacts = queueFacts
        self.eventNamesProvider = eventNamesProvider
        self.oldestPendingProvider = oldestPendingProvider
        self.deadLettersProvider = deadLettersProvider
        self.wallClock = wallClock
        self.stallThreshold = stallThreshold
        (wakes, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (oldestChanges, oldestChangeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.historyLimit = historyLimit
        self.depthSamples = depthSamples
        self.rateWindow = rateWindow
        self.tickInterval = tickInterval
        // A point per ten seconds whatever the tick (one tick a point when ticks are longer).
        let ticks = Trend.pointInterval / max(tickInterval, .milliseconds(1))
        trend = Trend(ticksPerPoint: ticks.isFinite ? Int(min(3_600, max(1, ticks.rounded()))) : 10)
        self.sleep = sleep
        self.baseTotals = depth.totals
        self.depthProvider = depthProvider
        current = EngineSnapshot(
            time: wallClock(), isOffline: settings.isOffline, policy: settings.policy, batchSize: settings.batchSize,
            maxBatchBytes: settings.maxBatchBytes, endpoint: endpoint, storePath: storePath)
        current.queueBounds = queueBounds
        Self.apply(depth, base: depth.totals, to: &current)
        appliedDepth = depth
    }

    /// Hands a step to the observer without waiting.
    public nonisolated func report(_ event: EngineEvent) {
        // A commit with nobody subscribed waits for the next read, report or tick (and
        // at most ``Inbox/lazyLimit`` of them wait).
        var urgent = true
        if case .queue(.committed) = event { urgent = subscriberCount.load(ordering: .relaxed) > 0 }
        // When it happened, not when it is applied: a delivery's or an error's time.
        let time = wallClock()
        let wake = inbox.withLock { inbox in
            inbox.events.append((event, time))
            guard !inbox.woken, urgent || inbox.events.count >= Inbox.lazyLimit else { return false }
            inbox.woken = true
            return true
        }
        if wake { wakeContinuation.yield() }
    }

    /// The latest snapshot, with every report made so far applied.
    public var snapshot: EngineSnapshot {
        applyInbox()
        return current
    }

    /// The observer's wall clock now (what ages and stalls are measured against).
    public nonisolated func now() -> Timestamp { wallClock() }

    /// Snapshots from now on, starting with the current one; the newest wins when the
    /// reader is slow.
    public func snapshots() -> AsyncStream<EngineSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: EngineSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        // Counted before the inbox is applied: a commit from now on wakes the observer.
        changeWatchers(by: 1)
        applyInbox()
        continuation.yield(current)
        // The count drops at once, from whatever thread ends the stream; the entry goes at
        // the next publish, which finds it terminated (no task to reach the actor).
        continuation.onTermination = { [weak self] _ in self?.changeWatchers(by: -1) }
        return stream
    }

    /// Counts subscribers; the first one makes commits wake the observer, the last one
    /// going lets them wait for the next read (under one lock, so two changes at once
    /// cannot leave the stream's wake behind the count).
    private nonisolated func changeWatchers(by change: Int) {
        watchers.withLock { watchers in
            let before = watchers
            watchers += change
            subscriberCount.store(watchers, ordering: .relaxed)
            guard (before == 0) != (watchers == 0) else { return }
            queueFacts?.setWake(watchers > 0 ? .always : .notForCommits)
        }
    }

    /// Consumes the queue's facts, reports and ticks until cancelled.
    public func run() async {
        // What only a tick reads (the disk, the names tracked) is known from the start, not
        // from the first tick an interval later.
        if let eventNamesProvider { sampleEventNames(eventNamesProvider()) }
        if let diskProvider { current.disk = diskProvider() }
        publish()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in self.wakes {
                    await self.applyInbox()
                }
            }
            if let queueFacts {
                group.addTask {
                    while let facts = await queueFacts.nextFacts() {
                        await self.applyInbox(queueFacts: facts)
                    }
                }
            }
            group.addTask {
                for await _ in self.oldestChanges {
                    await self.readOldestAgain()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    do {
                        try await self.sleep(self.tickInterval)
                    } catch {
                        return  // cancelled: the observer is shutting down
                    }
                    await self.tick()
                }
            }
            await group.next()
            group.cancelAll()
        }
        wakeContinuation.finish()
        oldestChangeContinuation.finish()
        for subscriber in subscribers.values { subscriber.finish() }  // each one's termination lowers the count
        subscribers.removeAll()
    }

    /// Applies the queue's facts read so far and the reports waiting in the inbox, then
    /// publishes one snapshot. The facts come first: a batcher reports a batch after its
    /// settle was published.
    private func applyInbox(queueFacts read: [QueueEvent] = []) {
        let facts = read + (queueFacts?.takeAvailable() ?? [])
        let events = inbox.withLock { inbox in
            defer {
                inbox.events.removeAll(keepingCapacity: true)
                inbox.woken = false
            }
            return inbox.events
        }
        guard !events.isEmpty || !facts.isEmpty else { return }
        if !facts.isEmpty {
            let now = wallClock()
            for fact in facts { apply(fact, at: now) }
        }
        for (event, time) in events { update(with: event, at: time) }
        publish()
    }

    /// Applies one step at once and publishes the result (what ``run()`` does for the
    /// reports it finds waiting).
    public func apply(_ event: EngineEvent) {
        applyInbox()  // the reports made before it come first
        update(with: event, at: wallClock())
        publish()
    }

    /// Applies `event`, which was reported at `time`.
    private func update(with event: EngineEvent, at time: Timestamp) {
        switch event {
        case .queue(let queueEvent):
            apply(queueEvent, at: time)
        case .batchStarted(_, let destination, _, _, _):
            reportedStates[destination] = .sending
            updateDestination(named: destination) { $0.state = .sending }
        case .batchFinished(let record, _, _):
            batches.prepend(record)
            if record.outcome != .filtered {  // every other outcome is an answer to a request
                current.totals.requests &+= 1
                current.totals.bytesSent &+= max(0, record.bytes)
            }
            if batches.count > historyLimit { batches.removeLast(batches.count - historyLimit) }
            switch record.outcome {
            case .sent:
                updateDestination(named: record.destination) {
                    $0.lastSuccessAt = time
                    $0.failingSince = nil
                }
                current.totals.batchesSent += 1
                latencies.append(record.duration)
                current.latency = latencies.latency
            case .retry: current.totals.retried += 1
            case .split: current.totals.split += 1
            case .deadLettered, .paused, .filtered: break
            }
            if record.outcome == .retry || record.outcome == .paused {
                updateDestination(named: record.destination) {
                    $0.lastStatus = record.status
                    if $0.failingSince == nil { $0.failingSince = time }
                }
            }
            noteRequest(of: record)
            if let error = record.error { current.noteError(error, at: time) }
            current.recentBatches = Array(batches)
        case .destination(var status):
            reportedStates[status.name] = status.state
            if let index = current.destinations.firstIndex(where: { $0.name == status.name }) {
                // Ages and successes are the observer's to keep.
                let known = current.destinations[index]
                status.oldestPendingAt = status.oldestPendingAt ?? known.oldestPendingAt
                status.lastSuccessAt = status.lastSuccessAt ?? known.lastSuccessAt
                status.deliveryRate = status.deliveryRate ?? known.deliveryRate
                status.failingSince = status.failingSince ?? known.failingSince
                status.failureRate = status.failureRate ?? known.failureRate
                status.inflowRate = status.inflowRate ?? known.inflowRate
                // The failure's status stands as long as its error does.
                status.lastStatus = status.lastError == nil ? nil : status.lastStatus ?? known.lastStatus
                current.destinations[index] = status
            } else {
                current.destinations.append(status)
            }
            // A destination first reported with events waiting: their age is read at once.
            if status.depth > 0, status.oldestPendingAt == nil { askForOldest() }
            if let error = status.lastError { current.noteError(error, at: time) }
        case .settings(let settings):
            current.isOffline = settings.isOffline
            current.policy = settings.policy
            current.batchSize = settings.batchSize
            current.maxBatchBytes = settings.maxBatchBytes
        case .rejected(let error):
            current.noteError("rejected at track: \(error)", at: time)
        case .problem(let message):
            current.noteError(message, at: time)
        case .remoteConfig(let summary):
            current.remoteConfig = summary
        case .refusedAtBound(let refused):
            current.fullQueueRefusesNew = true
            let (sum, overflow) = current.totals.refused.addingReportingOverflow(max(0, refused))
            current.totals.refused = overflow ? .max : sum
        }
    }

    /// At most this often, a change of the oldest pending events is read at once; a
    /// drain settling hundreds of batches a second reads them ten times a second.
    static let oldestReadSpacing: Duration = .milliseconds(100)

    /// Reads the oldest pending events again after a change, at most every
    /// ``oldestReadSpacing``: until then the ones shown are those of the last read, at
    /// most that old. Before, they waited for the next tick, and for up to a second
    /// after a delivery the console showed the age of an event already delivered.
    private func readOldestAgain() async {
        guard oldestIsStale, let oldestPendingProvider else { return }
        if let last = oldestReadAt {
            let since = wallClock().millisecondsSince1970 - last.millisecondsSince1970
            let spacing = Self.oldestReadSpacing.inMilliseconds
            if since >= 0, since < spacing {
                // Real time, not the injected sleep: the spacing bounds the store's work.
                do {
                    try await Task.sleep(for: .milliseconds(spacing - since))
                } catch {
                    return  // cancelled: the observer is shutting down
                }
            }
        }
        guard oldestIsStale else { return }  // a tick read them meanwhile
        applyInbox()
        if await readOldest(oldestPendingProvider) { publish() }
    }

    /// Reads each destination's oldest pending event; `false` when the store cannot say now.
    private func readOldest(_ provider: @Sendable () async -> [String: Timestamp]?) async -> Bool {
        oldestIsStale = false  // a change from now on asks again
        oldestReadAt = wallClock()
        guard let oldest = await provider() else {
            oldestIsStale = true
            return false
        }
        for index in current.destinations.indices {
            // One emptied while the store was read has no oldest, whatever the read found.
            let destination = current.destinations[index]
            current.destinations[index].oldestPendingAt = destination.depth > 0 ? oldest[destination.name] : nil
        }
        return true
    }

    /// Takes a depth sample and updates the rates (what ``run()`` does every tick).
    public func tick() async {
        applyInbox()  // commits waiting with nobody subscribed
        // Following the queue's facts, the store is read only for what they changed (a read
        // that failed is tried again); otherwise, every tick.
        let follows = queueFacts != nil
        if let oldestPendingProvider, !follows || oldestIsStale || oldestReadAt == nil {
            _ = await readOldest(oldestPendingProvider)
        }
        let letters = deadLetterMark
        if let deadLettersProvider, !follows || deadLettersReadAt != letters {
            if let read = await deadLettersProvider() {
                current.recentDeadLetters = read
                deadLettersReadAt = letters
            }
        }
        // The depth: the stream's, but the queue's own while the store fails (events wait
        // in memory, and no commit tells of them).
        let read = depthProvider.flatMap { provider in !follows || current.storageProblem != nil ? provider() : nil }
        if let read { apply(depth: read) }
        if let depth = read ?? (follows ? appliedDepth : nil) {
            destinationSamples.append(depth.destinations.mapValues(\.delivered))
            if destinationSamples.count > rateWindow + 1 { destinationSamples.removeFirst() }
        }
        depthHistory.append(current.depth)
        if depthHistory.count > depthSamples { depthHistory.removeFirst(depthHistory.count - depthSamples) }
        current.depthHistory = Array(depthHistory)
        rateSamples.append((current.totals.accepted, current.totals.delivered))
        if rateSamples.count > rateWindow + 1 { rateSamples.removeFirst() }
        if let first = rateSamples.first, let last = rateSamples.last, rateSamples.count > 1 {
            let seconds = tickInterval.inSeconds * Double(rateSamples.count - 1)
            current.rateIn = Double(last.accepted - first.accepted) / seconds
            current.rateOut = Double(last.delivered - first.delivered) / seconds
        }
        for index in current.destinations.indices { current.destinations[index].inflowRate = current.rateIn }
        trend.add(depth: current.depth, rateIn: current.rateIn, rateOut: current.rateOut)
        current.trend = trend.points
        if let eventNamesProvider { sampleEventNames(eventNamesProvider()) }
        if let diskProvider { current.disk = diskProvider() }
        estimateFilling()
        if let first = destinationSamples.first, let last = destinationSamples.last, destinationSamples.count > 1 {
            let seconds = tickInterval.inSeconds * Double(destinationSamples.count - 1)
            for index in current.destinations.indices {
                let name = current.destinations[index].name
                guard let before = first[name], let now = last[name], now >= before else { continue }
                current.destinations[index].deliveryRate = Double(now - before) / seconds
            }
        }
        publish()
    }

    private func apply(_ event: QueueEvent, at time: Timestamp) {
        switch event {
        case .committed(_, let depth), .dropped(_, _, let depth), .settled(_, let depth):
            apply(depth: depth)
        case .storageProblem(let problem):
            current.storageProblem = problem
            current.buffered = problem.bufferedEvents
            if let depthProvider { apply(depth: depthProvider()) }
            current.noteError("storage \(problem)", at: time)
        case .storageRecovered(let depth):
            current.storageProblem = nil
            apply(depth: depth)
        case .deadLettersChanged(_, let depth):
            apply(depth: depth)
        }
    }

    /// Applies a depth unless a later one is applied already (``QueueDepth/isOvertaken(by:)``):
    /// a commit's depth that reaches the observer after the settle it caused stays out.
    private func apply(depth: QueueDepth) {
        if let applied = appliedDepth, depth.isOvertaken(by: applied) {
            // The count accepted is read apart from the store's counters: keep the higher.
            if depth.totals.accepted > applied.totals.accepted {
                appliedDepth?.totals.accepted = depth.totals.accepted
                current.totals.accepted = baseTotals.committed + depth.totals.accepted
            }
            return
        }
        let before = appliedDepth
        appliedDepth = depth
        Self.apply(depth, base: baseTotals, to: &current)
        noteOldestChanges(from: before, to: depth)
    }

    /// After events left a destination, or arrived when it had none, its oldest pending
    /// event is another: none when nothing is pending (known at once), else read again.
    private func noteOldestChanges(from before: QueueDepth?, to after: QueueDepth) {
        var changed = false
        for index in current.destinations.indices {
            let name = current.destinations[index].name
            let now = after.destinations[name] ?? DestinationDepth()
            let was = before?.destinations[name] ?? DestinationDepth()
            // Pending as the console shows it (every event, for one not registered yet).
            let (pendingNow, pendingBefore) = (after.pending(for: name), before?.pending(for: name) ?? 0)
            if pendingNow == 0 {
                current.destinations[index].oldestPendingAt = nil
                continue
            }
            if pendingBefore == 0 {
                current.destinations[index].oldestPendingAt = nil  // events arrived: their age is read
                changed = true
                continue
            }
            let left = now.delivered != was.delivered || now.deadLettered != was.deadLettered
                || now.filtered != was.filtered || now.dropped != was.dropped
            if left || current.destinations[index].oldestPendingAt == nil { changed = true }
        }
        if changed { askForOldest() }
    }

    /// Marks the oldest pending events shown as stale and wakes their reader.
    private func askForOldest() {
        guard oldestPendingProvider != nil else { return }
        oldestIsStale = true
        oldestChangeContinuation.yield()
    }

    /// Lifetime totals: the store's counters when the engine opened it, plus what the
    /// queue accepted since.
    private static func apply(_ depth: QueueDepth, base: QueueTotals, to current: inout EngineSnapshot) {
        current.depth = depth.events
        current.queuedBytes = depth.bytes
        current.buffered = depth.buffered
        current.totals.accepted = base.committed + depth.totals.accepted
        current.totals.delivered = depth.totals.delivered
        current.totals.deadLettered = depth.totals.deadLettered
        current.totals.dropped = depth.totals.dropped
        current.totals.deadLettersRetried = depth.totals.deadLettersRetried
        current.totals.deadLettersPurged = depth.totals.deadLettersPurged
        current.deadLetters = depth.deadLetters
        if current.storageProblem != nil { current.storageProblem?.bufferedEvents = depth.buffered }
        for index in current.destinations.indices {
            current.destinations[index].depth = depth.pending(for: current.destinations[index].name)
        }
    }

    private func updateDestination(named name: String, _ change: (inout DestinationStatus) -> Void) {
        guard let index = current.destinations.firstIndex(where: { $0.name == name }) else { return }
        change(&current.destinations[index])
    }

    private func publish() {
        let now = wallClock()
        // Ages and "ok … ago" are measured from the snapshot's time: it is the time it is
        // published, not the last tick's (a delivery after the tick read "ok 0.0 ms ago").
        current.time = now
        for index in current.destinations.indices {
            current.destinations[index].stalled = current.destinations[index].isStalled(at: now, threshold: stallThreshold)
            // As its batcher reported it: sending through a whole drain, idle once the drain
            // ended, even with events left (they wait for the policy).
            let destination = current.destinations[index]
            current.destinations[index].state = reportedStates[destination.name] ?? destination.state
        }
        for (id, subscriber) in subscribers {
            if case .terminated = subscriber.yield(current) { subscribers[id] = nil }
        }
    }

    /// What the dead letters shown were read at (``deadLetterMark``): read again when the
    /// facts moved it.
    private var deadLettersReadAt: [Int]?

    /// The counters every change of the dead letters moves.
    private var deadLetterMark: [Int] {
        [current.deadLetters, current.totals.deadLettered, current.totals.deadLettersRetried, current.totals.deadLettersPurged]
    }

    /// How soon the disk and the queue's bound are reached at the net inflow (arriving
    /// minus leaving), in the queue's average bytes per event.
    private func estimateFilling() {
        let net = current.rateIn - current.rateOut
        guard net.isFinite, net > 0 else {
            current.diskFullInSeconds = nil
            current.boundInSeconds = nil
            return
        }
        let perEvent = current.depth > 0 ? Double(max(0, current.queuedBytes)) / Double(current.depth) : 0
        current.diskFullInSeconds = perEvent > 0 ? current.disk?.secondsUntilFull(growingBy: net * perEvent) : nil
        if let bounds = current.queueBounds {
            // In doubles: a bound or a count read from a damaged store must not overflow.
            let room = max(0, Double(bounds.maxEvents) - Double(max(0, current.depth)) - Double(max(0, current.buffered)))
            current.boundInSeconds = room / net
        } else {
            current.boundInSeconds = nil
        }
    }

    /// Lists the busiest names with their rates over the rate window (a name new to the
    /// list has no rate until it was listed at the window's start).
    private func sampleEventNames(_ counts: EventNameCounts) {
        let top = counts.top(EngineSnapshot.eventNameLimit)
        nameSamples.append(Dictionary(top.map { ($0.name, $0.count) }, uniquingKeysWith: max))
        if nameSamples.count > rateWindow + 1 { nameSamples.removeFirst() }
        let seconds = tickInterval.inSeconds * Double(max(1, nameSamples.count - 1))
        let first = nameSamples.count > 1 ? nameSamples.first : nil
        current.eventNames = top.map { entry in
            let rate = first?[entry.name].flatMap { before in entry.count >= before ? Double(entry.count - before) / seconds : nil }
            return EngineSnapshot.EventName(name: entry.name, count: entry.count, rate: rate)
        }
        current.otherEventNames = counts.other(beyond: EngineSnapshot.eventNameLimit)
    }

    /// Each destination's last requests, failed or not (at most ``DestinationStatus/failureWindow``).
    private var recentRequests: [String: Deque<Bool>] = [:]

    /// Counts a batch's request in its destination's ``DestinationStatus/failureRate``: a
    /// retry and a refused credential failed; a delivery, a split and a dead letter were
    /// answered (a filtered batch sent nothing).
    private func noteRequest(of record: BatchRecord) {
        let failed: Bool
        switch record.outcome {
        case .filtered: return
        case .retry, .paused: failed = true
        case .sent, .split, .deadLettered: failed = false
        }
        var window = recentRequests[record.destination] ?? Deque()
        window.append(failed)
        if window.count > DestinationStatus.failureWindow { window.removeFirst(window.count - DestinationStatus.failureWindow) }
        recentRequests[record.destination] = window
        let rate = Double(window.count(where: { $0 })) / Double(window.count)
        updateDestination(named: record.destination) { $0.failureRate = rate }
    }

    /// Each destination's state as its batcher last reported it.
    private var reportedStates: [String: DestinationStatus.State] = [:]

    /// Reports not yet applied.
    private struct Inbox {
        /// Commits that may wait unapplied, at most: past it they wake the observer anyway.
        static let lazyLimit = 1_024
        /// Each report and when it was made.
        var events: [(event: EngineEvent, time: Timestamp)] = []
        var woken = false
    }

    static func percentiles(_ samples: Deque<Duration>) -> EngineSnapshot.Latency {
        LatencyWindow.latency(sorted: samples.sorted())
    }
}

extension TrackingObserver {
    /// Returns the first snapshot (the current one included) that satisfies `condition`,
    /// or `nil` if the task is cancelled first. For scripts, benchmarks and tests that
    /// wait for the engine without sleeping.
    public func firstSnapshot(where condition: @Sendable (EngineSnapshot) -> Bool) async -> EngineSnapshot? {
        for await snapshot in snapshots() where condition(snapshot) {
            return snapshot
        }
        return nil
    }
}

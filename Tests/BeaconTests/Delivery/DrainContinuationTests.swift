@_spi(Testing) import Beacon
import BeaconTesting
import Synchronization
import Testing

/// A queue whose settles can be held back or made to fail: a store busy with a long group
/// commit, or one that cannot write.
final class HeldSettleQueue: EventQueue {
    private struct State {
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
        var failures = 0
        var peeks = 0
        var settleAttempts = 0
        var afterPeek: (number: Int, body: @Sendable () async -> Void)?
    }

    let inner = InMemoryEventQueue()
    private let state = Mutex(State())

    /// Holds every settle from now on until ``release()``.
    func hold() { state.withLock { $0.holding = true } }

    /// Lets held and future settles through.
    func release() {
        let waiting = state.withLock { state in
            state.holding = false
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Runs `body` in the `number`-th read (1 for the first), after it has read the store
    /// and before it returns.
    func afterPeek(_ number: Int, _ body: @escaping @Sendable () async -> Void) {
        state.withLock { $0.afterPeek = (number, body) }
    }

    /// Reads so far.
    var peeks: Int { state.withLock { $0.peeks } }

    /// Settles tried so far (those that failed included).
    var settleAttempts: Int { state.withLock { $0.settleAttempts } }

    /// Makes the next `count` settles fail without storing anything.
    func failSettles(_ count: Int) { state.withLock { $0.failures = count } }

    var location: String { inner.location }
    var depth: QueueDepth { inner.depth }
    func append(_ event: PendingEvent) -> CommitTicket { inner.append(event) }
    func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError) { try await inner.waitForCommit(ticket) }
    func waitForPendingWrites() async { await inner.waitForPendingWrites() }
    func makeBatchID() -> Int64 { inner.makeBatchID() }
    func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter] { try await inner.deadLetters(limit: limit) }
    func facts(wake: QueueFacts.Wake) -> QueueFacts { inner.facts(wake: wake) }
    func register(destination: String) async throws(StorageError) { try await inner.register(destination: destination) }
    func unregister(destination: String) async throws(StorageError) { try await inner.unregister(destination: destination) }
    func releaseLeases(for destination: String) { inner.releaseLeases(for: destination) }
    func peek(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        let events = try await inner.peek(for: destination, after: after, limit: limit, maxBytes: maxBytes)
        let hook = state.withLock { state -> (@Sendable () async -> Void)? in
            state.peeks += 1
            guard let hook = state.afterPeek, hook.number == state.peeks else { return nil }
            state.afterPeek = nil
            return hook.body
        }
        await hook?()
        return events
    }

    func settle(_ settlement: BatchSettlement) async throws(StorageError) {
        await withCheckedContinuation { continuation in
            let hold = state.withLock { state in
                if state.holding { state.held.append(continuation) }
                return state.holding
            }
            if !hold { continuation.resume() }
        }
        let fail = state.withLock { state in
            state.settleAttempts += 1
            defer { state.failures = max(0, state.failures - 1) }
            return state.failures > 0
        }
        if fail { throw StorageError(kind: .ioError, message: "injected settle failure") }
        try await inner.settle(settlement)
    }
}

/// How the batcher goes on after a batch: after it, without waiting for its settle, when
/// it was delivered; after a backoff while the store refuses its settle; and again when a flush was
/// asked for while a drain was ending. A short batch ends the drain.
@Suite("Drain continuation", .timeLimit(.minutes(1)))
struct DrainContinuationTests {
    let clock = ManualClock()

    func makeEngine(
        queue: HeldSettleQueue, sender: RecordingSender, settings: EngineSettings = EngineSettings(policy: .manual, batchSize: 10)
    ) -> BeaconEngine<ManualClock> {
        BeaconEngine(
            queue: queue, destination: Destination(sender: sender), settings: settings,
            clock: clock, random: { 0 }, observerSleep: { _ in try await Task.sleep(for: .seconds(3600)) })
    }

    /// Tracks the events, waits for their commit, then flushes.
    func trackAndFlush(_ engine: BeaconEngine<ManualClock>, _ range: Range<Int>) async throws {
        try await track(engine, range)
        await engine.flush()
    }

    /// Tracks the events and waits for their commit.
    func track(_ engine: BeaconEngine<ManualClock>, _ range: Range<Int>) async throws {
        for index in range { try engine.tracker.track("event \(index)", properties: ["index": .int(index)]) }
        await engine.queue.waitForPendingWrites()
    }

    /// `track`, for a hook that cannot throw.
    func trackInHook(_ engine: BeaconEngine<ManualClock>, _ range: Range<Int>) async {
        do { try await track(engine, range) } catch { Issue.record(error) }
    }

    @Test func theNextBatchGoesOutWhileTheLastOnesSettleIsHeld() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(queue: queue, sender: sender)
        // Read 1 is the first batch; read 2, the read-ahead during its send, finds nothing.
        // Events 11...20 are committed just after it: the second batch was not read ahead,
        // and the first one's settle is held.
        queue.afterPeek(2) { await trackInHook(engine, 10..<20) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            queue.hold()
            try await trackAndFlush(engine, 0..<10)
            let batches = await sender.waitForSends(2)
            #expect(queue.depth.events == 20, "neither settle has landed")
            #expect(batches.map { $0.events.map(\.sequence) } == [Array(1...10), Array(11...20)])
            queue.release()
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 20 }
            #expect(queue.depth.events == 0)
            #expect(sender.batches.count == 2, "nothing was sent twice")
            group.cancelAll()
        }
    }

    @Test("a settle the store refuses goes again after a backoff on the clock; nothing is sent twice")
    func aFailedSettleIsRetriedAfterABackoff() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(queue: queue, sender: sender)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            queue.failSettles(2)
            try await trackAndFlush(engine, 0..<10)
            _ = await sender.waitForSends(1)
            #expect(await engine.observer.firstSnapshot { $0.lastError?.contains("cannot settle") == true } != nil)
            // The retries wait on the clock: 50 ms, then 100 ms.
            await clock.waitForSleepers(1)
            #expect(queue.settleAttempts == 1)
            clock.advance(by: .milliseconds(50))
            await clock.waitForSleepers(1)
            #expect(queue.settleAttempts == 2)
            clock.advance(by: .milliseconds(100))
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 10 }
            #expect(queue.settleAttempts == 3)
            #expect(queue.depth.events == 0)
            try await trackAndFlush(engine, 10..<20)
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 20 }
            #expect(sender.batches.map { $0.events.map(\.sequence) } == [Array(1...10), Array(11...20)], "nothing was sent twice")
            group.cancelAll()
        }
    }

    @Test("a store that refuses every settle stops the sending once the settle line is full; it resumes when the store takes them")
    func aStoreThatRefusesSettlesStopsTheSending() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(queue: queue, sender: sender)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            queue.failSettles(Int.max)
            try await trackAndFlush(engine, 0..<100)
            // One settle retrying, two waiting their turn, and the batch after them waiting
            // for room: four batches out of ten, and no more.
            _ = await sender.waitForSends(4)
            let more = await BatcherShutdownTests.within(.milliseconds(500)) { _ = await sender.waitForSends(5) }
            #expect(!more, "the sending went on while no settle could land")
            #expect(sender.batches.count == 4)
            #expect(queue.depth.events == 100, "nothing is settled")
            // The store takes writes again: the retry lands, and the rest goes once.
            queue.failSettles(0)
            await clock.waitForSleepers(1)
            clock.advanceToNextDeadline()
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 100 }
            #expect(queue.depth.events == 0)
            let sent = sender.batches.map { $0.events.map(\.sequence) }
            #expect(sent.joined().sorted() == Array(1...100), "each event sent once")
            group.cancelAll()
        }
    }

    @Test func eventsCommittedDuringAShortBatchWaitForThePolicy() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(queue: queue, sender: sender, settings: EngineSettings(policy: .count(3), batchSize: 10))
        // The third event starts a drain. Its read returns 3 events where 10 fit:
        // everything queued then. Events 4 and 5 are committed before it returns: two,
        // under the policy's count, so they wait for a third.
        queue.afterPeek(1) { await trackInHook(engine, 3..<5) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await track(engine, 0..<3)
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 3 }
            // The drain is over: the destination reads idle, with its two events left.
            #expect(await engine.observer.firstSnapshot { $0.destinations.first?.state == .idle && $0.depth == 2 } != nil)
            try await track(engine, 5..<6)
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 6 }
            // Draining on would have read 4 and 5 during the first send, and sent 6 alone.
            #expect(sender.batches.map { $0.events.map(\.sequence) } == [[1, 2, 3], [4, 5, 6]])
            #expect(queue.peeks == 2, "one read per drain: none ahead of a short batch, none after it")
            #expect(queue.depth.events == 0)
            group.cancelAll()
        }
    }

    @Test func aFlushSendsWhatArrivesDuringItsShortBatchToo() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(queue: queue, sender: sender)
        // A flush means "empty the queue": events committed during its last send go too.
        queue.afterPeek(1) { await trackInHook(engine, 3..<6) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await trackAndFlush(engine, 0..<3)
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 6 }
            #expect(sender.batches.map { $0.events.map(\.sequence) } == [[1, 2, 3], [4, 5, 6]])
            #expect(queue.depth.events == 0)
            group.cancelAll()
        }
    }

    @Test func anEventLeftPastAByteCutWaitsForTheIntervalNotForACommit() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(
            queue: queue, sender: sender, settings: EngineSettings(policy: .interval(.seconds(10)), batchSize: 10, maxBatchBytes: 2000))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            // The second event does not fit beside the first: the read stops at one event,
            // under half the byte limit, so it reads as short and the drain ends with the
            // second still queued. No commit follows to wake the batcher.
            try engine.tracker.track("small")
            try engine.tracker.track("large", properties: ["pad": .string(String(repeating: "x", count: 1900))])
            await engine.queue.waitForPendingWrites()
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(10))
            #expect(await sender.waitForSends(1).map { $0.events.map(\.name) } == [["small"]])
            // The policy looked again as the drain ended: the next interval is on the clock.
            await clock.waitForSleepers(1)
            #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(20)))
            clock.advance(by: .seconds(10))
            #expect(await sender.waitForSends(2).map { $0.events.map(\.name) } == [["small"], ["large"]])
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 2 }
            group.cancelAll()
        }
    }

    @Test func aFlushAskedForWhileADrainEndsDrainsAgain() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(queue: queue, sender: sender)
        // Read 3 is the drain's last (after the first batch, nothing yet). While it returns,
        // events 11...20 are committed and a flush is asked for; then the held settle lands
        // and the drain ends.
        queue.afterPeek(3) {
            await trackInHook(engine, 10..<20)
            await engine.flush()
            queue.release()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            queue.hold()
            try await trackAndFlush(engine, 0..<10)
            let batches = await sender.waitForSends(2)
            #expect(batches.map { $0.events.map(\.sequence) } == [Array(1...10), Array(11...20)])
            _ = await engine.observer.firstSnapshot { $0.totals.delivered == 20 }
            #expect(queue.depth.events == 0)
            group.cancelAll()
        }
    }

    @Test("on a real store, a run cancelled while its settle waits for a busy writer still lands the settle, then ends")
    func aCancelledRunLandsItsSettleOnABusyStore() async throws {
        let store = try TemporaryStore("cancel")
        defer { withExtendedLifetime(store) {} }  // its files, removed with it, are used to the end
        let path = store.path
        let queue = try SQLiteEventQueue(path: path)
        let sender = RecordingSender()
        let engine = BeaconEngine(
            queue: queue, destination: Destination(sender: sender), settings: EngineSettings(policy: .manual, batchSize: 10),
            clock: clock, random: { 0 }, observerSleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        // Registered before the run starts, so that its own registration writes nothing later.
        try await queue.register(destination: Destination.defaultName)
        let run = Task { try await engine.run() }
        for index in 0..<10 { try engine.tracker.track("event \(index)") }
        await queue.waitForPendingWrites()
        _ = await engine.observer.firstSnapshot { $0.destinations.first?.state == .idle }
        // The writer is busy: the settle of the batch sent below waits behind it.
        let releaseWriter = await queue.holdWriter()
        await engine.flush()
        _ = await sender.waitForSends(1)
        run.cancel()
        releaseWriter()
        _ = await run.result
        #expect(sender.batches.count == 1)
        #expect(queue.depth.events == 0, "the settle landed although the run was cancelled before it could run")
        _ = await queue.close()
        // And the store says so: nothing is sent again on the next start.
        let reopened = try SQLiteEventQueue(path: path)
        #expect(reopened.depth.events == 0)
        _ = await reopened.close()
    }

    @Test("a cancelled run returns only once the settle of a batch the collector took has landed")
    func aCancelledRunWaitsForItsSettles() async throws {
        let queue = HeldSettleQueue()
        let sender = RecordingSender()
        let engine = makeEngine(queue: queue, sender: sender)
        let (ended, end) = AsyncStream<Void>.makeStream()
        let run = Task {
            defer { end.finish() }
            try await engine.run()
        }
        queue.hold()
        try await trackAndFlush(engine, 0..<10)
        _ = await sender.waitForSends(1)
        run.cancel()
        // Held: the run must not end while the settle waits. Without the wait it ends at once.
        let endedWhileHeld = await BatcherShutdownTests.within(.milliseconds(500)) { for await _ in ended {} }
        #expect(!endedWhileHeld, "the run ended with a settle still held")
        queue.release()
        _ = await run.result
        #expect(queue.depth.events == 0, "the settle landed before the run ended")
        #expect(sender.batches.count == 1)
    }
}

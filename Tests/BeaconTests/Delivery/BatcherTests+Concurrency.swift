import Beacon
import BeaconTesting
import BeaconWire
import Synchronization
import Testing

/// `maxConcurrentRequests` above 1 on a manual clock with scripted senders: waves go out
/// together, each batch is settled on its own, and a failure in a wave is handled once.
extension BatcherTests {
    func makeEngine(
        concurrency: Int, batchSize: Int, sender: any EventSender, retryPolicy: RetryPolicy = RetryPolicy()
    ) throws -> BeaconEngine<ManualClock> {
        BeaconEngine(
            queue: InMemoryEventQueue(), destination: try Destination(sender: sender, maxConcurrentRequests: concurrency),
            settings: EngineSettings(policy: .manual, batchSize: batchSize), retryPolicy: retryPolicy, clock: clock,
            random: { 0 }, observerSleep: { _ in try await Task.sleep(for: .seconds(3600)) })
    }

    /// Three waves of three batches: each wave's sends are under way together (the gate
    /// holds each send until three wait), and every batch is settled and recorded alone.
    @Test func aWaveSendsItsBatchesTogetherAndSettlesEachAlone() async throws {
        let recording = RecordingSender()
        let gate = GateSender(width: 3, inner: recording)
        let counted = InFlightSender(wrapping: gate)
        let engine = try makeEngine(concurrency: 3, batchSize: 10, sender: counted)
        try await running(engine) {
            try await track(engine, 90)
            await engine.flush()
            #expect(await waitUntilEmpty(engine)?.totals.delivered == 90)
            // A batch's record reaches the observer just after its settle: wait for the last.
            let snapshot = await engine.observer.firstSnapshot { $0.totals.batchesSent >= 9 }
            #expect(snapshot?.totals.batchesSent == 9, "one settle and one record per batch")
            let history = snapshot?.recentBatches ?? []
            #expect(history.count == 9)
            #expect(history.allSatisfy { $0.outcome == .sent && $0.events == 10 })
        }
        #expect(counted.maxInFlight == 3)
        #expect(gate.timedOut == 0, "every send met two others at the gate")
        let ids = recording.batches.flatMap { $0.events.map(\.messageId) }
        #expect(ids.count == 90)
        #expect(Set(ids).count == 90, "each event sent once")
    }

    /// The second batch of a wave fails once: the wave counts one failure, backs off once,
    /// and after the backoff only that batch's events go again.
    @Test func aFailureInAWaveBacksOffOnceAndResendsOnlyWhatFailed() async throws {
        let sender = RecordingSender { batch, call in
            // The first wave is the first three calls, in whatever order its sends start.
            call < 3 && batch.events.contains { $0.name == "event 10" }
                ? SendResult(.retryable(reason: "HTTP 503", retryAfter: nil), status: 503) : SendResult(.delivered, status: 200)
        }
        let engine = try makeEngine(concurrency: 3, batchSize: 10, sender: sender)
        try await running(engine) {
            try await track(engine, 30)
            await engine.flush()
            let first = await sender.waitForSends(3)
            #expect(first.count == 3)
            await clock.waitForSleepers(1)
            let failed = await engine.observer.firstSnapshot {
                $0.totals.retried == 1 && $0.destinations.first?.consecutiveFailures == 1
            }
            #expect(failed != nil, "one retry, counted as one failure")
            #expect(sender.batches.count == 3, "nothing leaves while backing off")
            clock.advanceToNextDeadline()
            #expect(await waitUntilEmpty(engine)?.totals.delivered == 30)
        }
        let batches = sender.batches
        #expect(batches.count == 4)
        let failed = batches[batches.count - 1].events.map(\.name)
        #expect(failed == (10..<20).map { "event \($0)" }, "only the failed batch goes again")
        let delivered = sender.deliveredMessageIds { batch, call in !(call < 3 && batch.events.contains { $0.name == "event 10" }) }
        #expect(delivered.count == 30)
        #expect(Set(delivered).count == 30)
    }

    /// 413 in waves of four: split down, the event too large alone dead-lettered, every
    /// other event delivered once.
    @Test func tooLargeInWavesSplitsAndDeadLetters() async throws {
        let sender = RecordingSender { batch, _ in
            if batch.events.count > 2 || batch.events.contains(where: { $0.name == "event 4" }) {
                return SendResult(.tooLarge, status: 413)
            }
            return SendResult(.delivered, status: 200)
        }
        let counted = InFlightSender(wrapping: sender)
        let engine = try makeEngine(concurrency: 4, batchSize: 8, sender: counted)
        try await running(engine) {
            try await track(engine, 32)
            await engine.flush()
            let snapshot = await waitUntilEmpty(engine)
            #expect(snapshot?.totals.delivered == 31)
            #expect(snapshot?.totals.deadLettered == 1)
            #expect((snapshot?.totals.split ?? 0) >= 2)
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.map(\.event.name) == ["event 4"])
        }
        #expect(counted.maxInFlight <= 4)
        let delivered = sender.deliveredMessageIds { batch, _ in batch.events.count <= 2 && !batch.events.contains { $0.name == "event 4" } }
        #expect(delivered.count == 31)
        #expect(Set(delivered).count == 31)
    }
}

/// Holds each send until `width` sends wait together, then lets them all through to
/// `inner`; a send that waits 10 s goes through alone and is counted in ``timedOut``
/// (so a batcher that never overlaps fails the test instead of hanging it).
private final class GateSender: EventSender {
    private struct State {
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0
        var timedOut = 0
    }

    private let width: Int
    private let inner: any EventSender
    private let state = Mutex(State())

    init(width: Int, inner: any EventSender) {
        self.width = width
        self.inner = inner
    }

    var endpointDescription: String { inner.endpointDescription }

    var timedOut: Int { state.withLock { $0.timedOut } }

    func send(_ batch: OutgoingBatch) async -> SendResult {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timeout = Task { [self] in
            // A backstop, not a wait: cancelled once the gate opens; a gate never opened is counted and fails the test.
            try? await Task.sleep(for: .seconds(10))
            let late = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                state.timedOut += 1
                return state.waiting.remove(at: index).continuation
            }
            late?.resume()
        }
        await withCheckedContinuation { continuation in
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.waiting.append((id, continuation))
                guard state.waiting.count >= width else { return [] }
                defer { state.waiting.removeAll() }
                return state.waiting.map(\.continuation)
            }
            for waiting in released { waiting.resume() }
        }
        timeout.cancel()
        return await inner.send(batch)
    }
}

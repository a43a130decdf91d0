import BeaconWire
import Beacon
import BeaconTesting
import Testing

/// The batcher on a manual clock with a recording sender: no sleeps, no network.
@Suite("Batcher", .timeLimit(.minutes(1)))
struct BatcherTests {
    let clock = ManualClock()

    func makeEngine(
        policy: FlushPolicy, batchSize: Int = 10, sender: RecordingSender = RecordingSender(), queue: any EventQueue = InMemoryEventQueue(),
        retryPolicy: RetryPolicy = RetryPolicy()
    ) -> (BeaconEngine<ManualClock>, RecordingSender) {
        let engine = BeaconEngine(
            queue: queue, destination: Destination(sender: sender), settings: EngineSettings(policy: policy, batchSize: batchSize),
            retryPolicy: retryPolicy, clock: clock, random: { 0 }, observerSleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        return (engine, sender)
    }

    /// Runs the engine while `body` runs, then stops it.
    func running(_ engine: BeaconEngine<ManualClock>, _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await body()
            group.cancelAll()
        }
    }

    func track(_ engine: BeaconEngine<ManualClock>, _ count: Int) async throws {
        for index in 0..<count { try engine.tracker.track("event \(index)", properties: ["index": .int(index)]) }
        await engine.queue.waitForPendingWrites()
    }

    /// Waits until every accepted event has left the queue (delivered, dead-lettered or
    /// dropped), as the observer reports it.
    @discardableResult
    func waitUntilEmpty(_ engine: BeaconEngine<ManualClock>) async -> EngineSnapshot? {
        let accepted = engine.queue.depth.totals.accepted
        return await engine.observer.firstSnapshot { snapshot in
            snapshot.totals.accepted == accepted && snapshot.depth == 0 && snapshot.buffered == 0
                && snapshot.totals.delivered + snapshot.totals.deadLettered + snapshot.totals.dropped == accepted
        }
    }

    @Test func countPolicyFlushesWhenThresholdIsReached() async throws {
        let (engine, sender) = makeEngine(policy: .count(10), batchSize: 100)
        try await running(engine) {
            try await track(engine, 9)
            try await track(engine, 1)
            let batches = await sender.waitForSends(1)
            // Had it flushed before the 10th event, the first batch would hold fewer.
            #expect(batches[0].events.count == 10)
            await waitUntilEmpty(engine)
            #expect(sender.batches.count == 1)
        }
    }

    @Test func intervalPolicyFlushesOnTheClock() async throws {
        let (engine, sender) = makeEngine(policy: .interval(.seconds(5)), batchSize: 100)
        try await running(engine) {
            try await track(engine, 3)
            await clock.waitForSleepers(1)
            #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(5)))
            #expect(sender.batches.isEmpty)
            clock.advance(by: .seconds(5))
            let batches = await sender.waitForSends(1)
            #expect(batches[0].events.count == 3)
        }
    }

    @Test func anyPolicyTakesWhicheverComesFirst() async throws {
        let (engine, sender) = makeEngine(policy: .any([.count(5), .interval(.seconds(10))]), batchSize: 100)
        try await running(engine) {
            try await track(engine, 2)
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(10))
            #expect(await sender.waitForSends(1)[0].events.count == 2)
            await waitUntilEmpty(engine)
            try await track(engine, 5)
            #expect(await sender.waitForSends(2)[1].events.count == 5)
        }
    }

    @Test func manualPolicyWaitsForFlush() async throws {
        let (engine, sender) = makeEngine(policy: .manual, batchSize: 100)
        try await running(engine) {
            try await track(engine, 250)
            #expect(sender.batches.isEmpty)
            await engine.flush()
            let batches = await sender.waitForSends(3)
            #expect(batches.map(\.events.count) == [100, 100, 50])
        }
    }

    @Test func backlogOfFiveBatchesDrainsInFiveConsecutiveSends() async throws {
        let (engine, sender) = makeEngine(policy: .manual, batchSize: 10)
        try await running(engine) {
            try await track(engine, 50)
            await engine.flush()
            await waitUntilEmpty(engine)
            let batches = sender.batches
            #expect(batches.map(\.events.count) == [10, 10, 10, 10, 10])
            let sequences = batches.flatMap { $0.events.map(\.sequence) }
            #expect(sequences == Array(1...50))
            #expect(clock.now == ManualClock.Instant(offset: .zero))  // no timer was needed
        }
    }

    @Test func policyChangesAtRuntime() async throws {
        let (engine, sender) = makeEngine(policy: .manual, batchSize: 100)
        try await running(engine) {
            try await track(engine, 30)
            engine.setPolicy(.count(20))
            #expect(await sender.waitForSends(1)[0].events.count == 30)
            await waitUntilEmpty(engine)
            engine.setPolicy(.interval(.seconds(2)))
            try await track(engine, 4)
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(2))
            #expect(await sender.waitForSends(2)[1].events.count == 4)
            let snapshot = await engine.observer.firstSnapshot { $0.policy == .interval(.seconds(2)) }
            #expect(snapshot != nil)
        }
    }

    @Test func offlineQueuesAndOnlineDrainsTheBacklog() async throws {
        let (engine, sender) = makeEngine(policy: .count(10), batchSize: 10)
        try await running(engine) {
            engine.setOffline(true)
            _ = await engine.observer.firstSnapshot { $0.isOffline }
            try await track(engine, 100)
            #expect(sender.batches.isEmpty)
            #expect(await engine.observer.firstSnapshot { $0.depth == 100 && $0.isOffline } != nil)
            engine.setOffline(false)
            await waitUntilEmpty(engine)
            #expect(sender.batches.count == 10)
        }
    }

    @Test func retryableFailuresBackOffThenDeliver() async throws {
        let sender = RecordingSender { _, call in
            call < 3 ? SendResult(.retryable(reason: "HTTP 503", retryAfter: nil), status: 503) : SendResult(.delivered, status: 200)
        }
        let (engine, _) = makeEngine(policy: .count(5), batchSize: 100, sender: sender)
        try await running(engine) {
            try await track(engine, 5)
            var expected = Duration.zero
            for (call, delay) in [0.5, 1.0, 2.0].enumerated() {
                _ = await sender.waitForSends(call + 1)
                await clock.waitForSleepers(1)
                expected += .milliseconds(Int64(delay * 1000))
                #expect(clock.nextDeadline == ManualClock.Instant(offset: expected))
                clock.advanceToNextDeadline()
            }
            let batches = await sender.waitForSends(4)
            #expect(batches.map(\.attempt) == [1, 2, 3, 4])
            #expect(Set(batches.map { $0.events.map(\.messageId) }).count == 1)  // the same events each time
            let snapshot = await engine.observer.firstSnapshot { $0.totals.delivered == 5 && $0.totals.batchesSent == 1 }
            #expect(snapshot?.totals.retried == 3)
            #expect(snapshot?.recentBatches.map(\.outcome) == [.sent, .retry, .retry, .retry])
        }
    }

    /// The batch after the one in flight is read ahead; when the send fails, that batch is
    /// dropped and the retry starts again where the failure was, in queue order.
    @Test func aFailedSendDropsTheBatchReadAheadAndTheRetryResumesInOrder() async throws {
        let sender = RecordingSender { _, call in
            call == 1 ? SendResult(.retryable(reason: "HTTP 503", retryAfter: nil), status: 503) : SendResult(.delivered, status: 200)
        }
        let (engine, _) = makeEngine(policy: .manual, batchSize: 10, sender: sender)
        try await running(engine) {
            try await track(engine, 35)
            await engine.flush()
            _ = await sender.waitForSends(2)
            await clock.waitForSleepers(1)
            clock.advanceToNextDeadline()
            await waitUntilEmpty(engine)
            let batches = sender.batches
            let sent: [[Int64]] = batches.map { $0.events.map(\.sequence) }
            let expected: [[Int64]] = [Array(1...10), Array(11...20), Array(11...20), Array(21...30), Array(31...35)]
            #expect(sent == expected)
            #expect(batches.map(\.attempt) == [1, 1, 2, 1, 1])
            // Ids are given as batches are sent: the batch read ahead and dropped leaves no
            // gap (before, the history read 1, 2, 4, 5, 6 and an operator looked for batch 3).
            #expect(batches.map(\.id) == [1, 2, 3, 4, 5], "each send is its own batch in the history, numbered in turn")
            #expect(engine.queue.depth.destinations["default"] == DestinationDepth(pending: 0, delivered: 35))
        }
    }

    @Test func retryAfterIsRespected() async throws {
        let sender = RecordingSender { _, call in
            call == 0 ? SendResult(.retryable(reason: "HTTP 429", retryAfter: .seconds(7)), status: 429) : SendResult(.delivered, status: 200)
        }
        let (engine, _) = makeEngine(policy: .count(1), sender: sender)
        try await running(engine) {
            try await track(engine, 1)
            await clock.waitForSleepers(1)
            #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(7)))
            clock.advance(by: .milliseconds(6999))
            #expect(sender.batches.count == 1)
            clock.advance(by: .milliseconds(1))
            #expect(await sender.waitForSends(2).count == 2)
        }
    }

    @Test func tooLargeSplitsAndDeadLettersAnEventTooLargeAlone() async throws {
        // The destination takes at most 2 events per request, and never event "event 4".
        let sender = RecordingSender { batch, _ in
            if batch.events.count > 2 || batch.events.contains(where: { $0.name == "event 4" }) {
                return SendResult(.tooLarge, status: 413)
            }
            return SendResult(.delivered, status: 200)
        }
        let (engine, _) = makeEngine(policy: .manual, batchSize: 8, sender: sender)
        try await running(engine) {
            try await track(engine, 8)
            await engine.flush()
            let snapshot = await waitUntilEmpty(engine)
            #expect(snapshot?.totals.delivered == 7)
            #expect(snapshot?.totals.deadLettered == 1)
            #expect((snapshot?.totals.split ?? 0) >= 2)
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.map(\.event.name) == ["event 4"])
            #expect(letters.first?.reason.contains("413") == true)
        }
    }

    @Test func rejectedEventsAreDeadLetteredAndTheRestResent() async throws {
        let sender = RecordingSender { batch, _ in
            if let bad = batch.events.first(where: { $0.name == "event 2" }) {
                return SendResult(.rejected([EventRejection(messageId: bad.messageId, reason: "properties.index must be a string")]), status: 400)
            }
            return SendResult(.delivered, status: 200)
        }
        let (engine, _) = makeEngine(policy: .count(5), batchSize: 5, sender: sender)
        try await running(engine) {
            try await track(engine, 5)
            let snapshot = await waitUntilEmpty(engine)
            #expect(snapshot?.totals.delivered == 4)
            #expect(snapshot?.totals.deadLettered == 1)
            #expect(sender.batches.map(\.events.count) == [5, 4])
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.first?.reason == "properties.index must be a string")
            #expect(letters.first?.status == 400)
        }
    }

    @Test func unauthorizedPausesUntilResumed() async throws {
        let sender = RecordingSender { _, call in
            call == 0 ? SendResult(.unauthorized(reason: "HTTP 401: unknown write key"), status: 401) : SendResult(.delivered, status: 200)
        }
        let (engine, _) = makeEngine(policy: .count(1), sender: sender)
        try await running(engine) {
            try await track(engine, 1)
            let paused = await engine.observer.firstSnapshot { snapshot in
                snapshot.destinations.contains { if case .paused = $0.state { return true } else { return false } }
            }
            #expect(paused?.lastError == "HTTP 401: unknown write key")
            try await track(engine, 1)
            #expect(sender.batches.count == 1)
            await engine.resume()
            await waitUntilEmpty(engine)
            #expect(sender.batches.last?.events.count == 2)
        }
    }

    @Test func gracefulShutdownDrainsTheQueue() async throws {
        let (engine, sender) = makeEngine(policy: .manual, batchSize: 10)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await track(engine, 35)
            await engine.batcher.beginShutdown()
            try await group.next()
        }
        #expect(sender.batches.map(\.events.count) == [10, 10, 10, 5])
        #expect(engine.queue.depth.events == 0)
    }

    @Test func countersAddUp() async throws {
        let sender = RecordingSender { batch, call in
            switch call % 3 {
            case 0: return SendResult(.delivered, status: 200)
            case 1: return SendResult(.retryable(reason: "HTTP 500", retryAfter: nil), status: 500)
            default:
                return SendResult(.rejected([EventRejection(messageId: batch.events[0].messageId, reason: "bad")]), status: 400)
            }
        }
        let (engine, _) = makeEngine(
            policy: .manual, batchSize: 7, sender: sender, queue: InMemoryEventQueue(maxQueuedEvents: 60),
            retryPolicy: RetryPolicy(initialDelay: .zero, maxDelay: .zero))
        try await running(engine) {
            try await track(engine, 80)  // 20 over the bound: the oldest 20 are dropped
            await engine.flush()
            let s = await waitUntilEmpty(engine)
            let totals = try #require(s?.totals)
            #expect(totals.accepted == 80)
            #expect(totals.dropped == 20)
            #expect(totals.deadLettered > 0)
            #expect(totals.accepted == totals.delivered + totals.deadLettered + totals.dropped + s!.depth + s!.buffered)
        }
    }
}

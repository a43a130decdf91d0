import BeaconWire
import Beacon
import BeaconTesting
import Testing

/// A batch the destination can never take (a 500 every time) is given up on after the
/// retry limits: split to isolate the event that fails, which is dead-lettered with the
/// reason; everything else is delivered once and the queue empties.
extension BatcherTests {
    /// A destination that answers 500 to any batch holding the event named `poison`, and
    /// takes every other batch.
    static func poisonSender(named poison: String) -> RecordingSender {
        RecordingSender { batch, _ in
            batch.events.contains { $0.name == poison }
                ? SendResult(.retryable(reason: "HTTP 500 Internal Server Error", retryAfter: nil), status: 500)
                : SendResult(.delivered, status: 200)
        }
    }

    /// Lets `failures` failed sends back off: waits for each send and its timer, then
    /// moves the clock to the timer's deadline.
    func backOff(_ sender: RecordingSender, failures: Int) async {
        for call in 0..<failures {
            _ = await sender.waitForSends(call + 1)
            await clock.waitForSleepers(1)
            clock.advanceToNextDeadline()
        }
    }

    @Test func aBatchThatAlwaysFailsIsGivenUpOnAfterTheDefaultLimit() async throws {
        let sender = Self.poisonSender(named: "event 2")
        var retry = RetryPolicy()
        retry.isolateAfter = nil  // the give-up limit alone (the search after 5 server errors: BatcherTests+Isolation)
        let (engine, _) = makeEngine(policy: .manual, batchSize: 4, sender: sender, retryPolicy: retry)
        try await running(engine) {
            try await track(engine, 4)
            await engine.flush()
            await backOff(sender, failures: 99)  // the 100th failure gives up: no backoff after it
            let snapshot = await waitUntilEmpty(engine)
            let batches = sender.batches
            // 100 attempts of the whole batch, then halves, each sent once.
            #expect(batches.map(\.events.count) == Array(repeating: 4, count: 100) + [2, 2, 1, 1])
            #expect(batches.suffix(4).map { $0.events.map(\.name) } == [["event 0", "event 1"], ["event 2", "event 3"], ["event 2"], ["event 3"]])
            let delivered = sender.deliveredMessageIds { batch, _ in !batch.events.contains { $0.name == "event 2" } }
            #expect(delivered.count == 3 && Set(delivered).count == 3, "every other event delivered exactly once")
            #expect(snapshot?.totals.delivered == 3)
            #expect(snapshot?.totals.deadLettered == 1)
            #expect(engine.queue.depth.events == 0)
            // Waits with no jitter: 0.5 + 1 + ... + 32 s, then 92 × 60 s = 5583.5 s.
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.map(\.event.name) == ["event 2"])
            #expect(letters.first?.reason == "gave up after 102 attempts over 1h33m: HTTP 500 Internal Server Error")
            #expect(letters.first?.status == 500)
            // The history says so: the give-up split and the dead letter.
            let history = snapshot?.recentBatches ?? []
            #expect(history.contains {
                $0.outcome == .split && $0.error == "gave up after 100 attempts over 1h33m: HTTP 500 Internal Server Error; splitting to isolate"
            })
            #expect(history.contains { $0.outcome == .deadLettered && $0.error?.hasPrefix("gave up after 102 attempts") == true })
        }
    }

    @Test func theAttemptLimitIsRespectedExactlyAndTheRestFlows() async throws {
        let sender = Self.poisonSender(named: "event 0")
        var retry = RetryPolicy()
        retry.maxAttempts = 3
        let (engine, _) = makeEngine(policy: .count(1), sender: sender, retryPolicy: retry)
        try await running(engine) {
            try await track(engine, 1)
            await backOff(sender, failures: 2)
            let snapshot = await waitUntilEmpty(engine)
            #expect(sender.batches.count == 3, "three attempts, not one more")
            #expect(snapshot?.totals.deadLettered == 1)
            #expect(clock.sleeperCount == 0, "no retry waits")
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.first?.reason == "gave up after 3 attempts over 1.5s: HTTP 500 Internal Server Error")
            // The destination is not blocked: the next event goes at once.
            try engine.tracker.track("next")
            await engine.queue.waitForPendingWrites()
            let after = await waitUntilEmpty(engine)
            #expect(after?.totals.delivered == 1)
            #expect(sender.batches.map { $0.events.map(\.name) } == [["event 0"], ["event 0"], ["event 0"], ["next"]])
        }
    }

    @Test func theAgeLimitComesFromTheClock() async throws {
        let sender = Self.poisonSender(named: "event 0")
        var retry = RetryPolicy()
        retry.maxAttempts = nil
        retry.maxAge = .seconds(10)
        let (engine, _) = makeEngine(policy: .count(1), sender: sender, retryPolicy: retry)
        try await running(engine) {
            try await track(engine, 1)
            // Failures at 0, 0.5, 1.5, 3.5, 7.5 s; the one at 15.5 s is past 10 s.
            await backOff(sender, failures: 5)
            await waitUntilEmpty(engine)
            #expect(sender.batches.count == 6)
            #expect(clock.now == ManualClock.Instant(offset: .milliseconds(15_500)))
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.first?.reason == "gave up after 6 attempts over 15s: HTTP 500 Internal Server Error")
        }
    }
}

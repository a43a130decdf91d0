import Beacon
import BeaconTesting
import BeaconWire
import Logging
import Testing

/// A destination that refuses every event: every batch is dead-lettered, and the log
/// says so once per 10 s, not once per batch.
@Suite("Batcher log throttle", .timeLimit(.minutes(1)))
struct BatcherLogThrottleTests {
    @Test func aDestinationRefusingEveryBatchIsLoggedOncePerInterval() async throws {
        let sender = RecordingSender { batch, _ in
            SendResult(.rejected(batch.events.map { EventRejection(messageId: $0.messageId, reason: "bad") }), status: 400)
        }
        let lines = LogLines()
        let engine = BeaconEngine(
            queue: InMemoryEventQueue(), destination: Destination(sender: sender), settings: EngineSettings(policy: .manual, batchSize: 10),
            logger: Logger(label: "test.engine") { _ in CapturingLogHandler(lines: lines) })
        let run = Task { try await engine.run() }
        for index in 0..<500 { try engine.tracker.track("event \(index)") }
        await engine.queue.waitForPendingWrites()
        await engine.flush()
        let done = await engine.observer.firstSnapshot { $0.totals.deadLettered == 500 }
        #expect(done != nil)
        await engine.beginShutdown()
        try await run.value
        #expect(sender.batches.count == 50)
        // 50 batches dead-lettered within far less than 10 s: one line.
        let logged = lines.all.filter { $0.contains("events refused for good") }
        #expect(logged.count == 1, "\(logged.count) lines: \(logged.prefix(3))")
    }
}

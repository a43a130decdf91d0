import Beacon
import BeaconTesting

/// An engine over fakes: an in-memory queue, a sender that records what it gets, and a
/// clock that moves only when told. Returns how many events the first batch held.
func firstBatchOnTheInterval() async throws -> Int {
    let clock = ManualClock()
    let sender = RecordingSender()
    let engine = BeaconEngine(
        queue: InMemoryEventQueue(), destination: Destination(sender: sender),
        settings: EngineSettings(policy: .interval(.seconds(5))), clock: clock)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await engine.run() }
        try engine.tracker.track("Signed Up")
        await clock.waitForSleepers()
        clock.advance(by: .seconds(5))
        let batches = await sender.waitForSends(1)
        group.cancelAll()
        return batches[0].events.count
    }
}

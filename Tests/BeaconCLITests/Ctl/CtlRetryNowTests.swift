import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// `beacon ctl retry-now` and what `flush` and `status` say of a backoff, against a real
/// engine whose only destination failed once and backs off for an hour.
@Suite("beacon ctl retry-now", .timeLimit(.minutes(2)))
struct CtlRetryNowTests {
    @Test("a backoff is named by flush and status, and ended at once by retry-now; pauses are not lifted")
    func retryNowEndsABackoff() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/s.sqlite"
        let sender = RecordingSender { _, call in
            call == 0 ? SendResult(.retryable(reason: "HTTP 503 Service Unavailable", retryAfter: nil), status: 503) : SendResult(.delivered, status: 200)
        }
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: store), destination: Destination(sender: sender),
            settings: EngineSettings(policy: .manual, batchSize: 100),
            retryPolicy: RetryPolicy(initialDelay: .seconds(3600), maxDelay: .seconds(3600), jitter: 0))
        let task = Task { try await engine.run() }
        let control = try await engine.serveControl()
        for index in 0..<5 { try engine.tracker.track("e\(index)") }
        await engine.queue.waitForPendingWrites()
        await engine.flush()
        let backingOff = await engine.observer.firstSnapshot { $0.destinations.first?.state.nextRetryAt != nil }
        let nextRetry = try #require(backingOff?.destinations.first?.state.nextRetryAt)

        let flush = try await BeaconProcess.run(["ctl", "--db", store, "flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        #expect(flush.stdout == "flush: applied; backing off (flush waits for it; 'retry-now' ends it): default until \(nextRetry.iso8601)\n")
        let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let destination = try #require((json["destinations"] as? [[String: Any]])?.first)
        #expect(destination["state"] as? String == "backing off")
        #expect(destination["nextRetryAt"] as? String == nextRetry.iso8601)
        #expect(destination["consecutiveFailures"] as? Int == 1)
        #expect((destination["lastError"] as? String)?.contains("503") == true, "\(destination)")
        #expect(destination["lastStatus"] as? Int == 503, "the failure's HTTP status as a number: \(destination)")
        #expect(destination["drainSeconds"] is NSNull && destination["stalledSince"] is NSNull, "not sending, not stalled yet")
        #expect(destination["endpoint"] as? String == "recording://test")
        #expect(sender.batches.count == 1, "an hour's backoff: nothing was sent again")
        // beacon status reads the same typed status from the engine serving the store.
        let storeStatus = try await BeaconProcess.run(["status", "--db", store])
        #expect(storeStatus.status == 0, "\(storeStatus.stderr)")
        #expect(storeStatus.stdout.contains("engine       serving: online"), "\(storeStatus.stdout)")
        #expect(storeStatus.stdout.contains("destination  default: backing off until \(nextRetry.iso8601) after 1 failure"), "\(storeStatus.stdout)")
        let storeJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(try await BeaconProcess.run(["status", "--db", store, "--json"]).stdout.utf8))
                as? [String: Any])
        let engineDestination = try #require(((storeJSON["engine"] as? [String: Any])?["destinations"] as? [[String: Any]])?.first)
        #expect(engineDestination["state"] as? String == "backing off" && engineDestination["nextRetryAt"] as? String == nextRetry.iso8601)

        let unknown = try await BeaconProcess.run(["ctl", "--db", store, "retry-now", "nosuch"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("nosuch"), "\(unknown.stderr)")

        let retry = try await BeaconProcess.run(["ctl", "--db", store, "retry-now", "default"])
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(retry.stdout == "retry-now: retrying default now\n")
        let drained = await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.delivered == 5 }
        #expect(drained?.destinations.first?.state.nextRetryAt == nil)
        #expect(sender.batches.count == 2, "the failed batch went again at once")

        let nothing = try await BeaconProcess.run(["ctl", "--db", store, "retry-now", "--json"])
        #expect(nothing.status == 0, "\(nothing.stderr)")
        #expect(nothing.stdout.contains("\"retried\":[]"), "\(nothing.stdout)")
        let text = try await BeaconProcess.run(["ctl", "--db", store, "retry-now"])
        #expect(text.stdout == "retry-now: no destination is backing off; nothing to retry\n")

        // A pause stays a pause: retry-now ends a backoff, never an operator's decision.
        try await engine.pause(destination: "default")
        let paused = try await BeaconProcess.run(["ctl", "--db", store, "retry-now", "default"])
        #expect(paused.stdout == "retry-now: 'default' is not backing off; nothing to retry\n")
        #expect(await engine.observer.snapshot.destinations.first?.state == .pausedByOperator)

        await control.close()
        await engine.beginShutdown()
        try await task.value

        // With no engine, the store's facts alone, and the states said to be unknown.
        let alone = try await BeaconProcess.run(["status", "--db", store])
        #expect(alone.stdout.contains("engine       none answers on \(store).control: destination states unknown"), "\(alone.stdout)")
        let aloneJSON = try #require(try JSONSerialization.jsonObject(with: Data(try await BeaconProcess.run(["status", "--db", store, "--json"]).stdout.utf8)) as? [String: Any])
        #expect(aloneJSON["engine"] is NSNull, "\(aloneJSON)")
    }
}

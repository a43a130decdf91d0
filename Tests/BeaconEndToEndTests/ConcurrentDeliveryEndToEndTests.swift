import Beacon
import BeaconCollector
import BeaconTesting
import Foundation
import Logging
import Testing

/// `maxConcurrentRequests` above 1: the engine's HTTP sender sends waves of batches to a
/// real collector on 127.0.0.1, through the faults the one-in-flight tests use.
@Suite("Concurrent delivery end to end", .timeLimit(.minutes(3)))
struct ConcurrentDeliveryEndToEndTests {
    static func makeEngine(
        port: Int, directory: String, concurrency: Int, batchSize: Int,
        policy: FlushPolicy = .any([.count(100), .interval(.milliseconds(50))]),
        retryPolicy: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200)),
        timeout: Duration = .seconds(5)
    ) throws -> (BeaconEngine<ContinuousClock>, InFlightSender) {
        var logger = Logger(label: "beacon.e2e")
        logger.logLevel = ProcessInfo.processInfo.environment["BEACON_TEST_LOG"] == nil ? .critical : .debug
        let queue = try SQLiteEventQueue(path: "\(directory)/queue.sqlite", logger: logger)
        let sender = InFlightSender(wrapping: HTTPSender(
            configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: "e2e", requestTimeout: timeout),
            logger: logger))
        let engine = BeaconEngine(
            queue: queue, destination: try Destination(sender: sender, maxConcurrentRequests: concurrency),
            settings: EngineSettings(policy: policy, batchSize: batchSize), retryPolicy: retryPolicy, logger: logger)
        return (engine, sender)
    }

    /// Every event left the queue, and the observer's counters add up to what was tracked.
    static func waitUntilSettled(_ engine: BeaconEngine<ContinuousClock>, tracked: Int) async -> EngineSnapshot? {
        await engine.observer.firstSnapshot {
            $0.depth == 0 && $0.totals.delivered + $0.totals.deadLettered == tracked
        }
    }

    @Test(arguments: [2, 4])
    func everythingArrivesExactlyOnceThroughFaults(concurrency: Int) async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], faultPlan: DeliveryEndToEndTests.faultPlan, seed: 42)) { collector, port in
            let (engine, sender) = try Self.makeEngine(
                port: port, directory: directory, concurrency: concurrency, batchSize: 250, timeout: .milliseconds(400))
            var ids: [String] = []
            try await DeliveryEndToEndTests.running(engine) {
                for index in 0..<10_000 {
                    ids.append(try engine.tracker.track("Faulty", properties: ["index": .int(index)], anonymousId: "a").messageId)
                }
                let snapshot = await Self.waitUntilSettled(engine, tracked: 10_000)
                #expect(snapshot?.totals.delivered == 10_000)
                let letters = try await engine.queue.deadLetters(limit: 5).map(\.reason)
                #expect(snapshot?.totals.deadLettered == 0, "\(letters)")
                #expect((snapshot?.totals.retried ?? 0) > 0)
                #expect(snapshot?.totals.accepted == 10_000)
            }
            let stored = try await collector.storedMessageIds()
            #expect(stored.count == 10_000)
            #expect(Set(stored) == Set(ids))
            let log = collector.requestLog()
            let faults = Set(log.compactMap(\.fault))
            #expect(faults.count >= 3, "several kinds of fault were injected: \(faults)")
            #expect(log.contains { $0.status == 429 })
            #expect(sender.maxInFlight <= concurrency, "at most \(concurrency) in flight: \(sender.maxInFlight)")
            #expect(sender.maxInFlight > 1, "sends overlapped")
        }
    }

    /// Without faults, ten thousand events in waves of four: stored once, and the
    /// collector saw requests overlap (its own log: one arrived before another was answered).
    @Test func tenThousandEventsInWavesOfFourAreStoredExactlyOnce() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"])) { collector, port in
            let (engine, sender) = try Self.makeEngine(port: port, directory: directory, concurrency: 4, batchSize: 100, policy: .manual)
            var ids: [String] = []
            try await DeliveryEndToEndTests.running(engine) {
                for index in 0..<10_000 {
                    ids.append(try engine.tracker.track("Wave", properties: ["index": .int(index)], anonymousId: "a").messageId)
                }
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                let settled = await Self.waitUntilSettled(engine, tracked: 10_000)
                #expect(settled?.totals.delivered == 10_000)
                // A batch's record reaches the observer just after its settle: wait for the last.
                let snapshot = await engine.observer.firstSnapshot { $0.totals.batchesSent >= 100 }
                #expect(snapshot?.totals.batchesSent == 100, "one record per batch")
            }
            let stored = try await collector.storedMessageIds()
            #expect(stored.count == 10_000)
            #expect(Set(stored) == Set(ids))
            #expect(collector.stats().duplicates == 0)
            #expect(sender.maxInFlight <= 4)
            #expect(sender.maxInFlight > 1)
            let requests = collector.requestLog().filter { $0.route.hasPrefix("/v1/b") }
            #expect(requests.count == 100)
            #expect(requests.allSatisfy { $0.status == 200 && $0.events == 100 })
        }
    }

    /// 413 splitting and a refused event at four in flight: the event the collector
    /// refuses is dead-lettered, every other one stored once.
    @Test func splittingAndADeadLetterAtFour() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        var plan = FaultPlan.none
        plan.maxBatchEvents = 10
        let configuration = CollectorConfiguration(writeKeys: ["e2e"], limits: CollectorLimits(maxEventBytes: 2_000), faultPlan: plan)
        try await withCollector(configuration) { collector, port in
            let (engine, sender) = try Self.makeEngine(port: port, directory: directory, concurrency: 4, batchSize: 40, policy: .manual)
            var ids: [String] = []
            try await DeliveryEndToEndTests.running(engine) {
                for index in 0..<300 {
                    ids.append(try engine.tracker.track("Small", properties: ["index": .int(index)], anonymousId: "a").messageId)
                    if index == 150 {
                        // Within the engine's 32 KB limit, over this collector's 2 KB one.
                        try engine.tracker.track("Big", properties: ["blob": .string(String(repeating: "x", count: 5_000))], anonymousId: "a")
                    }
                }
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                let snapshot = await Self.waitUntilSettled(engine, tracked: 301)
                #expect(snapshot?.totals.delivered == 300)
                #expect(snapshot?.totals.deadLettered == 1)
                #expect((snapshot?.totals.split ?? 0) >= 2)
            }
            let stored = try await collector.storedMessageIds()
            #expect(stored.count == 300)
            #expect(Set(stored) == Set(ids))
            let letters = try await engine.queue.deadLetters(limit: 5)
            #expect(letters.map(\.event.name) == ["Big"])
            #expect(letters.first?.status == 400)
            #expect(collector.requestLog().contains { $0.status == 413 })
            #expect(sender.maxInFlight <= 4)
        }
    }

    /// Retries run out at four in flight: every event of a collector that stays down is
    /// dead-lettered with the reason, and the queue goes on once it is back.
    @Test func retriesRunOutAtFour() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        var plan = FaultPlan.none
        plan.down = true
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], faultPlan: plan)) { collector, port in
            var retry = RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200))
            retry.maxAttempts = 2
            let (engine, sender) = try Self.makeEngine(
                port: port, directory: directory, concurrency: 4, batchSize: 2, policy: .manual, retryPolicy: retry)
            try await DeliveryEndToEndTests.running(engine) {
                for index in 0..<8 { try engine.tracker.track("Doomed", properties: ["index": .int(index)], anonymousId: "a") }
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                #expect(await Self.waitUntilSettled(engine, tracked: 8)?.totals.deadLettered == 8)
                let letters = try await engine.queue.deadLetters(limit: 10)
                #expect(letters.count == 8)
                #expect(letters.allSatisfy { $0.reason.hasPrefix("gave up after ") && $0.status == 503 }, "\(letters.map(\.reason))")
                try collector.setFaultPlan(.none)
                try engine.tracker.track("Afterwards", anonymousId: "a")
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                #expect(await Self.waitUntilSettled(engine, tracked: 9)?.totals.delivered == 1)
            }
            #expect(try await collector.storedCount() == 1)
            #expect(sender.maxInFlight <= 4)
        }
    }

    /// The backoff on an injected clock at four in flight: each wave of four is refused,
    /// counted as one failure, and the next wave waits for the policy's growing delay;
    /// nothing is sent while the batcher sleeps.
    @Test func outageBacksOffWaveByWave() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        var plan = FaultPlan.none
        plan.down = true
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], faultPlan: plan)) { collector, port in
            let clock = ManualClock()
            var logger = Logger(label: "beacon.e2e")
            logger.logLevel = .critical
            let queue = try SQLiteEventQueue(path: "\(directory)/queue.sqlite", logger: logger)
            let sender = InFlightSender(wrapping: HTTPSender(
                configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: "e2e", requestTimeout: .seconds(10)),
                logger: logger))
            let engine = BeaconEngine(
                queue: queue, destination: try Destination(sender: sender, maxConcurrentRequests: 4),
                settings: EngineSettings(policy: .manual, batchSize: 50),
                retryPolicy: RetryPolicy(initialDelay: .milliseconds(50), maxDelay: .seconds(5), multiplier: 2, jitter: 0.2), clock: clock,
                logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.run() }
                for index in 0..<200 { try engine.tracker.track("Outage", properties: ["index": .int(index)], anonymousId: "a") }
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                var delays: [Duration] = []
                for failures in 0..<5 {
                    // The wave's four attempts are refused and settled; the batcher then sleeps on the clock.
                    _ = await engine.observer.firstSnapshot { $0.totals.retried >= 4 * (failures + 1) }
                    await clock.waitForSleepers()
                    let attempts = collector.requestLog().filter { $0.route.hasPrefix("/v1/b") }
                    #expect(attempts.count == 4 * (failures + 1), "one wave of four per wake, none while asleep: \(attempts.count)")
                    #expect(attempts.allSatisfy { $0.status == 503 })
                    #expect(sender.inFlight == 0, "nothing in flight while asleep")
                    // A wave counts one failure: four would make the first wait 0.4 s.
                    delays.append(try DeliveryEndToEndTests.expectBackoff(on: clock, afterFailures: failures, "wave \(failures + 1)"))
                    if failures == 4 { try collector.setFaultPlan(.none) }
                    clock.advanceToNextDeadline()
                }
                #expect(delays.last.map { $0 > delays[0] * 8 } == true, "the waits grow: \(delays)")
                #expect(await engine.observer.firstSnapshot { $0.totals.delivered >= 200 && $0.depth == 0 } != nil)
                #expect(try await collector.storedCount() == 200)
                #expect(sender.maxInFlight <= 4)
                #expect(sender.maxInFlight > 1)
                group.cancelAll()
            }
        }
    }
}

import Beacon
import BeaconCollector
import BeaconTesting
import Foundation
import Logging
import Testing

/// Engine → HTTP sender → collector on 127.0.0.1, with real SQLite files and real time.
@Suite("Delivery end to end", .timeLimit(.minutes(2)))
struct DeliveryEndToEndTests {
    /// The faults of the exactly-once tests, at one batch in flight and at several: 5xx,
    /// 429 with Retry-After, hangs past the client's timeout, and resets.
    static var faultPlan: FaultPlan {
        var plan = FaultPlan.none
        plan.failRate = 0.3
        plan.throttleRate = 0.1
        plan.retryAfterSeconds = 1
        plan.hangRate = 0.1
        plan.hangSeconds = 2
        plan.resetRate = 0.05
        return plan
    }

    /// The batcher's sleep now on `clock`, checked against the default retry policy
    /// after `failures` counted failures (50 ms doubling up to 5 s, ± 20 % jitter).
    static func expectBackoff(on clock: ManualClock, afterFailures failures: Int, _ label: String) throws -> Duration {
        let deadline = try #require(clock.nextDeadline)
        let delay = clock.now.duration(to: deadline)
        let policy = min(5.0, 0.05 * pow(2, Double(failures)))
        #expect(
            delay.inSeconds >= policy * 0.8 - 0.001 && delay.inSeconds <= policy * 1.2 + 0.001,
            "\(label): slept \(delay), the policy says \(policy) s ± 20 %")
        return delay
    }

    static func makeEngine(
        port: Int, directory: String, batchSize: Int, policy: FlushPolicy = .any([.count(100), .interval(.milliseconds(50))]),
        retryPolicy: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200)),
        timeout: Duration = .seconds(5)
    ) throws -> BeaconEngine<ContinuousClock> {
        var logger = Logger(label: "beacon.e2e")
        logger.logLevel = ProcessInfo.processInfo.environment["BEACON_TEST_LOG"] == nil ? .critical : .debug
        let queue = try SQLiteEventQueue(path: "\(directory)/queue.sqlite", logger: logger)
        let sender = HTTPSender(
            configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: "e2e", requestTimeout: timeout),
            logger: logger)
        return BeaconEngine(
            queue: queue, destination: Destination(sender: sender), settings: EngineSettings(policy: policy, batchSize: batchSize),
            retryPolicy: retryPolicy, logger: logger)
    }


    /// Runs the engine while `body` runs, then stops it.
    static func running(_ engine: BeaconEngine<ContinuousClock>, _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await body()
            group.cancelAll()
        }
    }

    static func waitUntilDelivered(_ engine: BeaconEngine<ContinuousClock>, _ count: Int) async -> EngineSnapshot? {
        await engine.observer.firstSnapshot { $0.totals.delivered >= count && $0.depth == 0 }
    }

    @Test func tenThousandEventsAreStoredExactlyOnce() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"])) { collector, port in
            let engine = try Self.makeEngine(port: port, directory: directory, batchSize: 100)
            var ids: [String] = []
            try await Self.running(engine) {
                for index in 0..<10_000 {
                    ids.append(try engine.tracker.track("E2E", properties: ["index": .int(index)], anonymousId: "a").messageId)
                }
                #expect(await Self.waitUntilDelivered(engine, 10_000) != nil)
            }
            let stored = try await collector.storedMessageIds()
            #expect(stored.count == 10_000)
            #expect(Set(stored) == Set(ids))
            let stats = collector.stats()
            #expect(stats.stored == 10_000)
            #expect(stats.duplicates == 0)
        }
    }

    @Test func everythingArrivesExactlyOnceThroughFaults() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], faultPlan: Self.faultPlan, seed: 42)) { collector, port in
            let engine = try Self.makeEngine(port: port, directory: directory, batchSize: 250, timeout: .milliseconds(400))
            var ids: [String] = []
            try await Self.running(engine) {
                for index in 0..<10_000 {
                    ids.append(try engine.tracker.track("Faulty", properties: ["index": .int(index)], anonymousId: "a").messageId)
                }
                let snapshot = await Self.waitUntilDelivered(engine, 10_000)
                #expect(snapshot?.totals.deadLettered == 0)
                #expect((snapshot?.totals.retried ?? 0) > 0)
            }
            let stored = try await collector.storedMessageIds()
            #expect(stored.count == 10_000)
            #expect(Set(stored) == Set(ids))
            let log = collector.requestLog()
            let faults = Set(log.compactMap(\.fault))
            #expect(faults.count >= 3, "several kinds of fault were injected: \(faults)")
            #expect(log.contains { $0.status == 429 })
        }
    }

    /// The backoff on an injected clock: after each refused attempt the batcher sleeps for
    /// the policy's delay (50 ms × 2ⁿ, within its 20 % jitter), sends nothing until the
    /// clock reaches it, and one request is in flight at a time. No wall-clock bound: a
    /// loaded machine cannot make it pass or fail.
    @Test func outageBacksOffWithGrowingGapsOneRequestAtATime() async throws {
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
            let sender = HTTPSender(
                configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: "e2e", requestTimeout: .seconds(10)),
                logger: logger)
            let engine = BeaconEngine(
                queue: queue, destination: Destination(sender: sender), settings: EngineSettings(policy: .count(1), batchSize: 50),
                retryPolicy: RetryPolicy(initialDelay: .milliseconds(50), maxDelay: .seconds(5), multiplier: 2, jitter: 0.2), clock: clock,
                logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.run() }
                try engine.tracker.track("Outage", anonymousId: "a")
                var delays: [Duration] = []
                for failures in 0..<7 {
                    // The attempt is refused and settled; the batcher then sleeps on the clock.
                    _ = await engine.observer.firstSnapshot { $0.totals.retried >= failures + 1 }
                    await clock.waitForSleepers()
                    let attempts = collector.requestLog().filter { $0.route.hasPrefix("/v1/b") }
                    #expect(attempts.count == failures + 1, "one attempt per wake, none while asleep: \(attempts.count)")
                    #expect(attempts.allSatisfy { $0.status == 503 })
                    delays.append(try Self.expectBackoff(on: clock, afterFailures: failures, "attempt \(failures + 1)"))
                    // Back up before the last wake: the event goes through on it.
                    if failures == 6 { try collector.setFaultPlan(.none) }
                    clock.advanceToNextDeadline()
                }
                #expect(delays.last.map { $0 > delays[0] * 8 } == true, "the waits grow: \(delays)")
                #expect(await engine.observer.firstSnapshot { $0.totals.delivered >= 1 && $0.depth == 0 } != nil)
                #expect(try await collector.storedCount() == 1)
                group.cancelAll()
            }
        }
    }

    @Test func retriesRunOutAndTheQueueDoesNotBlock() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        var plan = FaultPlan.none
        plan.down = true
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], faultPlan: plan)) { collector, port in
            var retry = RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200))
            retry.maxAttempts = 2
            let engine = try Self.makeEngine(port: port, directory: directory, batchSize: 4, policy: .manual, retryPolicy: retry)
            try await Self.running(engine) {
                for index in 0..<4 { try engine.tracker.track("Doomed", properties: ["index": .int(index)], anonymousId: "a") }
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                let given = await engine.observer.firstSnapshot { $0.totals.deadLettered == 4 && $0.depth == 0 }
                #expect(given != nil)
                let letters = try await engine.queue.deadLetters(limit: 10)
                #expect(letters.count == 4)
                #expect(letters.allSatisfy { $0.reason.hasPrefix("gave up after ") && $0.reason.contains("503") && $0.status == 503 },
                        "\(letters.map(\.reason))")
                #expect(try await collector.storedCount() == 0)
                #expect(collector.requestLog().filter { $0.route.hasPrefix("/v1/b") }.allSatisfy { $0.status == 503 })

                try collector.setFaultPlan(.none)
                try engine.tracker.track("Afterwards", anonymousId: "a")
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                #expect(await Self.waitUntilDelivered(engine, 1) != nil)
                #expect(try await collector.storedCount() == 1)
            }
        }
    }

    @Test func retryAfterIsRespected() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        var plan = FaultPlan.none
        plan.throttleRate = 1
        plan.retryAfterSeconds = 1
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], faultPlan: plan)) { collector, port in
            let engine = try Self.makeEngine(port: port, directory: directory, batchSize: 50, policy: .count(1))
            try await Self.running(engine) {
                try engine.tracker.track("Throttled", anonymousId: "a")
                _ = await engine.observer.firstSnapshot { $0.totals.retried >= 3 }
                let arrivals = collector.requestLog().filter { $0.status == 429 }.map(\.secondsSinceStart)
                #expect(arrivals.count >= 3)
                for (earlier, later) in zip(arrivals, arrivals.dropFirst()) {
                    #expect(later - earlier >= 0.99, "Retry-After: 1 honoured: \(arrivals)")
                }
                try collector.setFaultPlan(.none)
                #expect(await Self.waitUntilDelivered(engine, 1) != nil)
            }
        }
    }

    @Test func offlineBurstDrainsInConsecutiveFullBatches() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"])) { collector, port in
            let batchSize = 40
            let engine = try Self.makeEngine(port: port, directory: directory, batchSize: batchSize, policy: .manual)
            try await Self.running(engine) {
                engine.setOffline(true)
                for index in 0..<(10 * batchSize + 7) { try engine.tracker.track("Offline", properties: ["index": .int(index)], anonymousId: "a") }
                await engine.queue.waitForPendingWrites()
                #expect(collector.requestLog().isEmpty)
                engine.setOffline(false)
                #expect(await Self.waitUntilDelivered(engine, 10 * batchSize + 7) != nil)
            }
            let requests = collector.requestLog().filter { $0.route.hasPrefix("/v1/b") }
            #expect(requests.map(\.events) == Array(repeating: batchSize, count: 10) + [7])
            #expect(requests.allSatisfy { $0.status == 200 })
            #expect(try await collector.storedCount() == 10 * batchSize + 7)
            #expect(engine.queue.depth.events == 0)
        }
    }

    @Test func refusedEventIsDeadLetteredAndTheRestStored() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], limits: CollectorLimits(maxEventBytes: 2_000))) { collector, port in
            let engine = try Self.makeEngine(port: port, directory: directory, batchSize: 10, policy: .manual)
            try await Self.running(engine) {
                for index in 0..<9 { try engine.tracker.track("Small", properties: ["index": .int(index)], anonymousId: "a") }
                // Within the engine's 32 KB limit, over this collector's 2 KB one.
                try engine.tracker.track("Big", properties: ["blob": .string(String(repeating: "x", count: 5_000))], anonymousId: "a")
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                let snapshot = await engine.observer.firstSnapshot { $0.totals.delivered == 9 && $0.totals.deadLettered == 1 }
                #expect(snapshot?.depth == 0)
            }
            #expect(try await collector.storedCount() == 9)
            let letters = try await engine.queue.deadLetters(limit: 5)
            #expect(letters.map(\.event.name) == ["Big"])
            #expect(letters.first?.status == 400)
        }
    }

    /// A client that resent a request whose answer it lost leaves two copies of its events
    /// in the queue. One request never carries both (the collector would refuse the batch
    /// for the repeat): the first copy goes, the later one is settled with it; a refused
    /// event's copies are dead-lettered with it.
    @Test(arguments: [1, 4])
    func copiesOfAMessageIdAreSentOnceAndSettledTogether(concurrency: Int) async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], limits: CollectorLimits(maxEventBytes: 2_000))) { collector, port in
            var logger = Logger(label: "beacon.e2e")
            logger.logLevel = .critical
            let queue = try SQLiteEventQueue(path: "\(directory)/queue.sqlite", logger: logger)
            let sender = HTTPSender(
                configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: "e2e"), logger: logger)
            let engine = BeaconEngine(
                queue: queue, destination: try Destination(sender: sender, maxConcurrentRequests: concurrency),
                settings: EngineSettings(policy: .manual, batchSize: 100), logger: logger)
            let big = String(repeating: "x", count: 5_000)
            try await Self.running(engine) {
                // Two rounds of the same ten ids, as a client resending one request; one of
                // them too large for this collector.
                for _ in 0..<2 {
                    for index in 0..<10 {
                        let blob = index == 7 ? #","properties":{"blob":"\#(big)"}"# : ""
                        try engine.tracker.track(json: Array(#"{"event":"Resent","messageId":"resent-\#(index)","anonymousId":"a"\#(blob)}"#.utf8))
                    }
                }
                await engine.queue.waitForPendingWrites()
                await engine.flush()
                let snapshot = await engine.observer.firstSnapshot { $0.totals.delivered + $0.totals.deadLettered == 20 }
                #expect(snapshot?.totals.delivered == 18)
                #expect(snapshot?.totals.deadLettered == 2)
                #expect(snapshot?.depth == 0)
            }
            let stored = try await collector.storedMessageIds()
            #expect(Set(stored) == Set((0..<10).filter { $0 != 7 }.map { "resent-\($0)" }))
            #expect(stored.count == 9)
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.map(\.event.messageId) == ["resent-7", "resent-7"])
            #expect(letters.allSatisfy { $0.status == 400 })
            let refusedForRepeats = collector.requestLog().filter { $0.status == 400 }.count
            #expect(refusedForRepeats == 1, "one 400, for the large event only: \(collector.requestLog().map(\.status))")
        }
    }

    @Test func wrongWriteKeyPausesTheDestination() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["another-key"])) { collector, port in
            let engine = try Self.makeEngine(port: port, directory: directory, batchSize: 10, policy: .count(1))
            try await Self.running(engine) {
                try engine.tracker.track("Refused")
                let paused = await engine.observer.firstSnapshot { snapshot in
                    snapshot.destinations.contains { if case .paused = $0.state { return true } else { return false } }
                }
                #expect(paused?.lastError?.contains("401") == true)
                #expect(paused?.depth == 1)
            }
            #expect(try await collector.storedCount() == 0)
        }
    }
}

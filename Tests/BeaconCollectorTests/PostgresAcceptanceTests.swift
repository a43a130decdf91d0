import Beacon
import BeaconCollector
import BeaconTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// Issue 16's acceptance runs, with engines: several collectors over one PostgreSQL store
/// each `messageId` once however batches are replayed, and survive the database stopping
/// under them. (The collector killed with SIGKILL is in the CLI tests: it needs processes.)
@Suite("PostgreSQL acceptance", .timeLimit(.minutes(2)))
struct PostgresAcceptanceTests {
    private func configuration(_ store: PostgresStoreConfiguration) -> CollectorConfiguration {
        var configuration = CollectorConfiguration(port: 0)
        configuration.postgres = store
        return configuration
    }

    private static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-acceptance-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs the engines while `body` runs, then stops them.
    private static func running(_ engines: [BeaconEngine<ContinuousClock>], _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for engine in engines { group.addTask { try await engine.run() } }
            defer { group.cancelAll() }
            try await body()
        }
    }

    /// Whether `engine` has delivered `count` events and holds none.
    /// Whether `engine` delivers `count` events and empties its queue within `limit`.
    private static func drained(_ engine: BeaconEngine<ContinuousClock>, _ count: Int, within limit: Duration) async -> Bool {
        await engine.observer.firstSnapshot(within: limit) { $0.totals.delivered >= count && $0.depth == 0 } != nil
    }

    @Test(
        "Two collectors, one database: two engines of 50,000 events, each to its own collector, 10% of batches replayed to the other; each messageId stored once",
        .enabled(if: PostgresTestDatabase.mustRun, "BEACON_TEST_POSTGRES is not set (.ci/run sets up a local PostgreSQL)"))
    func twoEnginesTwoCollectorsWithReplays() async throws {
        let perEngine = 50_000
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        try await PostgresTestDatabase.withSchema(operationTimeout: .seconds(30)) { store in
            try await withCollector(configuration(store)) { first, firstPort in
                try await withCollector(configuration(store)) { second, secondPort in
                    let senders = [
                        ReplayingSender(primary: try httpSender(port: firstPort), replay: try httpSender(port: secondPort), every: 10),
                        ReplayingSender(primary: try httpSender(port: secondPort), replay: try httpSender(port: firstPort), every: 10),
                    ]
                    let engines = try senders.enumerated().map { index, sender in
                        try makeEngine(directory: "\(directory)/engine-\(index)", sender: sender)
                    }
                    var tracked: [String] = []
                    try await Self.running(engines) {
                        for index in 0..<perEngine {
                            for engine in engines {
                                tracked.append(try engine.tracker.track("Acceptance", properties: ["index": .int(index)], anonymousId: "a").messageId)
                            }
                        }
                        for engine in engines {
                            #expect(await Self.drained(engine, perEngine, within: .seconds(90)), "the engine's queue emptied")
                        }
                    }
                    let ids = try await first.storedMessageIds()
                    #expect(ids.count == 2 * perEngine)
                    #expect(Set(ids).count == ids.count, "no messageId stored twice")
                    #expect(Set(ids) == Set(tracked), "every tracked event is stored")
                    let replayed = senders.map(\.replayed).reduce(0, +)
                    #expect(replayed >= 2 * perEngine / 20, "about 10% of the batches were replayed: \(replayed) events")
                    let (firstStats, secondStats) = (first.stats(), second.stats())
                    #expect(firstStats.stored + secondStats.stored == 2 * perEngine)
                    #expect(firstStats.duplicates + secondStats.duplicates >= replayed, "every replayed event counted as a duplicate once")
                    #expect(try await second.sharedTotals().events == 2 * perEngine)
                }
            }
        }
    }

    @Test(
        "PostgreSQL stopped for 10 s mid-stream: the collectors answer 503, the engines back off, and afterwards everything is stored once",
        .enabled(if: PrivatePostgres.mustRun, "needs root or the postgres user to run a private PostgreSQL"))
    func databaseOutageMidStream() async throws {
        let perEngine = 20_000
        let server = try await PrivatePostgres.make()
        defer { server.destroy() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        var shortTimeout = try PostgresStoreConfiguration(url: server.address)
        shortTimeout.operationTimeout = .seconds(2)
        let store = shortTimeout
        let tracked = Tracked()
        try await withCollector(configuration(store)) { first, firstPort in
            try await withCollector(configuration(store)) { second, secondPort in
                let recorders = [AttemptRecorder(try httpSender(port: firstPort)), AttemptRecorder(try httpSender(port: secondPort))]
                let engines = try recorders.enumerated().map { index, recorder in
                    try makeEngine(directory: "\(directory)/engine-\(index)", sender: recorder)
                }
                var outage: (start: ContinuousClock.Instant, end: ContinuousClock.Instant)?
                try await Self.running(engines) {
                    // The stream: 500 events per engine every 100 ms, about 4 s in all, so the outage cuts it.
                    async let streamed: Void = {
                        for round in 0..<(perEngine / 500) {
                            for engine in engines {
                                var ids: [String] = []
                                for index in 0..<500 {
                                    ids.append(try engine.tracker.track("Outage", properties: ["i": .int(round * 500 + index)], anonymousId: "a").messageId)
                                }
                                tracked.add(ids)
                            }
                            try await Task.sleep(for: .milliseconds(100))
                        }
                    }()
                    for engine in engines {
                        #expect(await engine.observer.firstSnapshot(within: .seconds(30)) { $0.totals.delivered >= 2_000 } != nil)
                    }
                    try await server.stopped()
                    let start = ContinuousClock.now
                    var restarted = false
                    defer { if !restarted { try? server.start() } }  // best effort: the test has failed already

                    try await withClient(port: firstPort) { client in
                        let refused = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "during-outage")]))
                        #expect(refused.status == 503)
                        #expect(refused.errorCode == "store_unavailable")
                        #expect(refused.headers[.retryAfter] == "2")
                        let health = try await call(client, .get, "/health")
                        #expect(health.status == 503)
                        #expect(health.json["status"] as? String == "unavailable")
                        #expect(health.json["store"] as? String == "postgres")
                        #expect(!health.text.contains("postgres://"))
                        let stats = try await call(client, .get, "/v1/stats")
                        #expect(stats.status == 200)
                        #expect(stats.json["sharedProblem"] is String)
                    }
                    for recorder in recorders {
                        #expect(await eventually(within: .seconds(15)) { recorder.attempts.contains { $0.status == 503 } }, "the engine was answered 503")
                    }
                    // The outage lasts 10 s: a scenario's length, not a wait for something to happen.
                    try await Task.sleep(until: start + .seconds(10))
                    try await server.started()
                    restarted = true
                    outage = (start, .now)
                    try await streamed
                    for engine in engines {
                        #expect(await Self.drained(engine, perEngine, within: .seconds(45)), "the engine's queue emptied")
                    }
                }
                let window = try #require(outage)
                for (index, recorder) in recorders.enumerated() {
                    // Backing off: each 503 said Retry-After 2, and the next try came no sooner.
                    let attempts = recorder.attempts
                    let refused = attempts.filter { $0.status == 503 }
                    #expect(!refused.isEmpty)
                    for (answer, next) in zip(attempts, attempts.dropFirst()) where answer.status == 503 {
                        #expect(next.start - answer.end >= .milliseconds(1_950), "engine \(index) waited out Retry-After")
                    }
                    let during = attempts.filter { $0.start >= window.start && $0.start <= window.end }
                    #expect(during.count <= 10, "engine \(index) tried \(during.count) times in a 10 s outage")
                }
            }
        }
        // Read back with a patient collector: the ones above give up on the database after 2 s.
        var patient = try PostgresStoreConfiguration(url: server.address)
        patient.operationTimeout = .seconds(30)
        try await withCollector(configuration(patient)) { collector, _ in
            let ids = try await collector.storedMessageIds()
            #expect(ids.count == 2 * perEngine)
            #expect(Set(ids).count == ids.count, "no messageId stored twice")
            #expect(Set(ids) == Set(tracked.ids), "every tracked event is stored")
            #expect(try await collector.sharedTotals().events == 2 * perEngine)
        }
    }
}

/// Ids tracked by a task, read by the test afterwards.
private final class Tracked: Sendable {
    private let state = Mutex<[String]>([])
    func add(_ ids: [String]) { state.withLock { $0 += ids } }
    var ids: [String] { state.withLock { $0 } }
}

import Beacon
import BeaconTesting
import Foundation
import Logging
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 16's second acceptance run: a `beacon collector --store postgres://…` process
/// killed with SIGKILL mid-stream, five times, and restarted on the same port each time.
/// Every batch that was answered 200 is in the database at each kill, and in the end every
/// event is stored exactly once.
@Suite(
    "Collector over PostgreSQL killed mid-stream",
    .enabled(if: CrashDatabase.mustRun, "BEACON_TEST_POSTGRES is not set (.ci/run sets up a local PostgreSQL)"),
    .timeLimit(.minutes(2)))
struct CollectorCrashTests {
    @Test func everyAnsweredBatchSurvivesKill9OfTheCollector() async throws {
        let address = try #require(CrashDatabase.address, "CI requires BEACON_TEST_POSTGRES")
        let schema = "beacon_crash_" + String(UInt64.random(in: 1...UInt64.max), radix: 36)
        let directory = try BeaconProcess.temporaryDirectory()
        var failure: (any Error)?
        do {
            try await Self.scenario(address: address, schema: schema, directory: directory)
        } catch {
            failure = error
        }
        // Whatever happened: a schema left behind would only cost disk, but drop it.
        let dropped = try await CrashDatabase.psql(address, "DROP SCHEMA IF EXISTS \(schema) CASCADE")
        #expect(dropped.status == 0)
        try? FileManager.default.removeItem(atPath: directory)  // best effort: a temp dir
        if let failure { throw failure }
    }

    static func scenario(address: String, schema: String, directory: String) async throws {
        let store = address + (address.contains("?") ? "&" : "?") + "schema=\(schema)"
        let events = 30_000
        var collector = try RunningCollector(arguments: ["--store", store], directory: directory)
        defer { collector.stop() }
        let port = try #require(Int(try await collector.address().split(separator: ":").last ?? ""))

        var logger = Logger(label: "beacon.crash")
        logger.logLevel = .critical
        let recorder = AnsweredRecorder(HTTPSender(
            configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: nil, requestTimeout: .seconds(10)),
            logger: logger))
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: directory + "/queue.sqlite", logger: logger), destination: Destination(sender: recorder),
            settings: EngineSettings(policy: .any([.count(500), .interval(.milliseconds(50))]), batchSize: 500),
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200)), logger: logger)
        var tracked: [String] = []
        var kills = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            defer { group.cancelAll() }
            for index in 0..<events {
                tracked.append(try engine.tracker.track("Crash", properties: ["i": .int(index)], anonymousId: "a").messageId)
            }
            // Kill after every few answered batches, while the engine keeps sending.
            for round in 1...5 {
                // The engine reports a batch sent after its sender saw the 200: three more
                // reported means three more recorded.
                let sent = await engine.observer.snapshot.totals.batchesSent
                let answered = await engine.observer.firstSnapshot(within: .seconds(30)) { $0.totals.batchesSent >= sent + 3 }
                #expect(answered != nil, "round \(round): batches were answered")
                kill(collector.process.processIdentifier, SIGKILL)
                collector.process.waitUntilExit()
                #expect(collector.process.terminationReason == .uncaughtSignal)
                kills += 1
                // Nothing writes now: every batch answered 200 so far must be in the database.
                let acknowledged = recorder.answeredIds
                let stored = Set(try await CrashDatabase.ids(address, schema: schema))
                let missing = acknowledged.filter { !stored.contains($0) }
                #expect(missing.isEmpty, "round \(round): \(missing.count) of \(acknowledged.count) acknowledged events missing after kill -9")
                collector = try await Self.restart(store: store, port: port, directory: directory)
            }
            let drained = await engine.observer.firstSnapshot(within: .seconds(60)) { $0.totals.delivered >= events && $0.depth == 0 }
            #expect(drained != nil, "the engine's queue emptied")
        }
        #expect(kills == 5)
        let ids = try await CrashDatabase.ids(address, schema: schema)
        #expect(ids.count == events)
        #expect(Set(ids).count == ids.count, "no messageId stored twice")
        #expect(Set(ids) == Set(tracked), "every tracked event is stored")
        #expect(Set(recorder.answeredIds).isSubset(of: Set(ids)))
    }

    /// Starts the collector again on `port`; retries a few times if the port is not free yet.
    static func restart(store: String, port: Int, directory: String) async throws -> RunningCollector {
        var lastError: any Error = CollectorProcessError("not started")
        for _ in 0..<20 {
            let collector = try RunningCollector(arguments: ["--store", store], directory: directory, port: port)
            do {
                _ = try await collector.address()
                return collector
            } catch {
                lastError = error
                collector.stop()
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError
    }

}

/// Remembers the `messageId`s of every batch answered 200.
final class AnsweredRecorder: EventSender {
    private let primary: any EventSender
    private let state = Mutex((batches: 0, ids: [String]()))

    init(_ primary: any EventSender) { self.primary = primary }

    var endpointDescription: String { primary.endpointDescription }
    var answeredBatches: Int { state.withLock { $0.batches } }
    var answeredIds: [String] { state.withLock { $0.ids } }

    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { primary.prepare(batch) }

    func send(_ batch: OutgoingBatch) async -> SendResult {
        let result = await primary.send(batch)
        if result.status == 200 {
            state.withLock { state in
                state.batches += 1
                state.ids += batch.events.map(\.messageId)
            }
        }
        return result
    }
}

/// The shared PostgreSQL of the tests (`BEACON_TEST_POSTGRES`), reached with `psql`.
enum CrashDatabase {
    static var address: String? {
        guard let value = ProcessInfo.processInfo.environment["BEACON_TEST_POSTGRES"], !value.isEmpty else { return nil }
        return value
    }

    /// Under CI the test runs (and fails without a database); locally it needs the address.
    static var mustRun: Bool {
        address != nil || ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } == true
    }

    /// The `messageId`s stored in `schema`.
    static func ids(_ address: String, schema: String) async throws -> [String] {
        let result = try await BeaconProcess.run(
            [address, "-v", "ON_ERROR_STOP=1", "-tAc", "SELECT message_id FROM \(schema).collector_events"], stdinBytes: nil,
            executable: "/usr/bin/psql")
        guard result.status == 0 else { throw CollectorProcessError("psql failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Runs one statement with `psql`; its status and output.
    static func psql(_ address: String, _ sql: String) async throws -> (status: Int32, output: String) {
        let result = try await BeaconProcess.run(
            [address, "-v", "ON_ERROR_STOP=1", "-tAc", sql], stdinBytes: nil, executable: "/usr/bin/psql")
        return (result.status, result.stdout)
    }
}

import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Logging
import Testing

@_spi(Benchmarks) @testable import Beacon

/// Pause and resume per destination on a running engine, with a real SQLite store.
@Suite("Engine: pause and resume a destination", .timeLimit(.minutes(1)))
struct EngineOperationsTests {
    static func makeEngine() throws -> (BeaconEngine<ContinuousClock>, RecordingSender, RecordingSender, String) {
        let directory = try Self.temporaryDirectory()
        let a = RecordingSender(endpoint: "recording://a")
        let b = RecordingSender(endpoint: "recording://b")
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: directory + "/s.sqlite"),
            destinations: [Destination(name: "a", sender: a), Destination(name: "b", sender: b)],
            settings: EngineSettings(policy: .manual, batchSize: 100))
        return (engine, a, b, directory)
    }

    /// A fresh directory under the system's temporary one.
    static func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-ops-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func status(_ snapshot: EngineSnapshot, _ name: String) -> DestinationStatus? {
        snapshot.destinations.first { $0.name == name }
    }

    static func sent(_ sender: RecordingSender) -> Int { sender.batches.reduce(0) { $0 + $1.events.count } }

    @Test func aPausedDestinationKeepsItsEventsWhileTheOtherSendsAndResumeDrainsThem() async throws {
        let (engine, a, b, directory) = try Self.makeEngine()
        let run = Task { try await engine.run() }
        #expect(try await engine.pause(destination: "a") == ["a"])
        let paused = await engine.observer.firstSnapshot { Self.status($0, "a")?.state == .pausedByOperator }
        #expect(paused != nil)
        for index in 0..<5 { try await engine.tracker.track("E", properties: ["i": .int(index)], anonymousId: "x").committed() }
        await engine.flush()
        let bDone = await engine.observer.firstSnapshot { Self.status($0, "b")?.depth == 0 && $0.totals.batchesSent >= 1 }
        #expect(Self.sent(b) == 5)
        #expect(Self.sent(a) == 0, "a paused destination sends nothing, flush or not")
        #expect(bDone.flatMap { Self.status($0, "a") }?.depth == 5)
        #expect(bDone.flatMap { Self.status($0, "a") }?.state == .pausedByOperator)
        #expect(bDone?.depth == 5, "its events stay queued")

        let status = await engine.controlStatus()
        guard case .array(let destinations)? = status["destinations"] else {
            Issue.record("no destinations in \(status)")
            return
        }
        #expect(destinations.first?["paused"] == .bool(true))
        #expect(destinations.first?["pausedBy"] == .string("operator"))
        #expect(destinations.first?["pending"] == .int(5))
        #expect((destinations.first?["oldestPendingAge"]?.doubleValue ?? -1) >= 0)
        #expect(destinations.last?["paused"] == .bool(false))

        // Resume drains what waited, without a flush.
        #expect(try await engine.resume(destination: "a") == ["a"])
        // Reports reach the observer asynchronously: wait for the count, not only the depth.
        #expect(await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.delivered == 5 } != nil)
        #expect(Self.sent(a) == 5)

        // Every destination at once.
        #expect(try await engine.pause(destination: nil) == ["a", "b"])
        _ = await engine.observer.firstSnapshot { $0.destinations.allSatisfy { $0.state == .pausedByOperator } }
        try await engine.tracker.track("E", anonymousId: "x").committed()
        await engine.flush()
        #expect(Self.sent(a) == 5 && Self.sent(b) == 5)
        try await engine.resume(destination: nil)
        #expect(await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.delivered == 6 } != nil)
        #expect(Self.sent(a) == 6 && Self.sent(b) == 6)
        #expect(a.batches.allSatisfy { $0.events.count > 0 })

        await engine.beginShutdown()
        try await run.value
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// An engine over the store at `path` sending to a and b, with fresh senders.
    static func makeEngine(path: String) throws -> (BeaconEngine<ContinuousClock>, RecordingSender, RecordingSender, SQLiteEventQueue) {
        let a = RecordingSender(endpoint: "recording://a")
        let b = RecordingSender(endpoint: "recording://b")
        let queue = try SQLiteEventQueue(path: path)
        let engine = BeaconEngine(
            queue: queue, destinations: [Destination(name: "a", sender: a), Destination(name: "b", sender: b)],
            settings: EngineSettings(policy: .manual, batchSize: 100))
        return (engine, a, b, queue)
    }

    @Test func anOperatorsPauseOutlivesARestartUntilResumed() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s.sqlite"

        // First life: a is paused, b delivers.
        do {
            let (engine, a, b, queue) = try Self.makeEngine(path: path)
            let run = Task { try await engine.run() }
            try await engine.pause(destination: "a")
            for _ in 0..<3 { try await engine.tracker.track("E", anonymousId: "x").committed() }
            await engine.flush()
            #expect(await engine.observer.firstSnapshot { Self.status($0, "b")?.depth == 0 && $0.totals.batchesSent >= 1 } != nil)
            #expect(Self.sent(a) == 0 && Self.sent(b) == 3)
            #expect(try await queue.pausedDestinations() == ["a"])
            await engine.beginShutdown()
            try await run.value
            _ = await queue.close()
        }

        // Second life on the same store: a starts paused, with its 3 events waiting.
        do {
            let (engine, a, b, queue) = try Self.makeEngine(path: path)
            let run = Task { try await engine.run() }
            let started = await engine.observer.firstSnapshot { Self.status($0, "a")?.state == .pausedByOperator }
            #expect(started.flatMap { Self.status($0, "a") }?.depth == 3)
            try await engine.tracker.track("E", anonymousId: "x").committed()
            await engine.flush()
            #expect(await engine.observer.firstSnapshot { Self.status($0, "b")?.depth == 0 && $0.totals.batchesSent >= 1 } != nil)
            #expect(Self.sent(b) == 1, "b goes on")
            #expect(Self.sent(a) == 0, "a stays paused across the restart")
            try await engine.resume(destination: "a")
            #expect(await engine.observer.firstSnapshot { $0.depth == 0 } != nil)
            #expect(Self.sent(a) == 4)
            #expect(try await queue.pausedDestinations().isEmpty, "resume forgets the pause")
            await engine.beginShutdown()
            try await run.value
            _ = await queue.close()
        }

        // Third life: nothing is paused.
        let (engine, a, b, queue) = try Self.makeEngine(path: path)
        let run = Task { try await engine.run() }
        try await engine.tracker.track("E", anonymousId: "x").committed()
        await engine.flush()
        #expect(await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.batchesSent >= 2 } != nil)
        #expect(Self.sent(a) == 1 && Self.sent(b) == 1)
        // Unregistering a destination forgets its pause too.
        try await engine.pause(destination: "b")
        #expect(try await queue.pausedDestinations() == ["b"])
        try await queue.unregister(destination: "b")
        #expect(try await queue.pausedDestinations().isEmpty)
        await engine.beginShutdown()
        try await run.value
    }

    @Test func aStoreFromBeforePausesIsMigratedAndADamagedPauseRowIsReported() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s.sqlite"
        // A store as the previous version left it.
        do {
            let old = try StoreFile.open(path)
            try StoreSchema.migrator().migrate(old, upTo: "v4-operations")
            let tables = try await old.read { db in try db.tableExists("destination_pauses") }
            #expect(!tables)
        }
        do {
            let queue = try SQLiteEventQueue(path: path)
            #expect(try await queue.pausedDestinations().isEmpty)
            try await queue.recordPause(true, destination: "a")
            try await queue.recordPause(true, destination: "a")
            #expect(try await queue.pausedDestinations() == ["a"], "recording twice is one pause")
            try await queue.recordPause(false, destination: "never-paused")
            #expect(try await queue.pausedDestinations() == ["a"])
            _ = await queue.close()
        }
        // A value Beacon did not write: reported as damage, naming the table.
        try await StoreFile.open(path).write { db in
            try db.execute(sql: "INSERT INTO destination_pauses VALUES (X'FF00', 0)")
        }
        let queue = try SQLiteEventQueue(path: path)
        let error = await #expect(throws: StorageError.self) { try await queue.pausedDestinations() }
        #expect(error?.message.contains("destination_pauses") == true, "\(String(describing: error))")
        // The engine starts every destination unpaused then, and says so in its log.
        let lines = LogLines()
        let a = RecordingSender(endpoint: "recording://a")
        let engine = BeaconEngine(
            queue: queue, destinations: [Destination(name: "a", sender: a)], settings: EngineSettings(policy: .manual),
            logger: Logger(label: "test.engine") { _ in CapturingLogHandler(lines: lines) })
        let run = Task { try await engine.run() }
        try await engine.tracker.track("E", anonymousId: "x").committed()
        await engine.flush()
        #expect(await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.batchesSent >= 1 } != nil)
        #expect(Self.sent(a) == 1)
        #expect(lines.all.contains { $0.contains("could not read which destinations an operator paused") }, "\(lines.all)")
        await engine.beginShutdown()
        try await run.value
    }

    @Test("an unknown destination is refused, naming the ones there are", arguments: [
        "c", "", "a\u{0}", String(repeating: "z", count: 10_000),
    ])
    func unknownDestination(name: String) async throws {
        let (engine, _, _, directory) = try Self.makeEngine()
        await #expect(throws: UnknownDestinationError.self) { try await engine.pause(destination: name) }
        do {
            try await engine.resume(destination: name)
            Issue.record("resumed \(name.prefix(10))")
        } catch {
            #expect(error.description.contains("this engine has: a, b"))
            #expect(!error.description.contains("\u{0}"), "control characters are shown escaped")
            #expect(error.description.count < 200)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func aHeldDestinationIsNotStalledButARefusingOneIs() {
        let now = Timestamp(millisecondsSince1970: 1_000_000)
        let old = Timestamp(millisecondsSince1970: 1_000_000 - 61_000)
        var status = DestinationStatus(name: "a", endpoint: "e", depth: 3, state: .backingOff(until: now), oldestPendingAt: old)
        #expect(status.isStalled(at: now))
        #expect(!status.isStalled(at: Timestamp(millisecondsSince1970: 1_000_000 - 2_000)), "waited less than the threshold")
        status.lastSuccessAt = Timestamp(millisecondsSince1970: 1_000_000 - 30_000)
        #expect(!status.isStalled(at: now), "something succeeded within the threshold")
        status.lastSuccessAt = old
        status.state = .paused(reason: "HTTP 401")
        #expect(status.isStalled(at: now))
        status.state = .pausedByOperator
        #expect(!status.isStalled(at: now), "an operator's pause is asked for")
        status.state = .offline
        #expect(!status.isStalled(at: now))
        status.state = .idle
        status.depth = 0
        #expect(!status.isStalled(at: now), "nothing waits")
        #expect(status.oldestPendingAge(at: now) == nil)
    }
}

@_spi(Testing) import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Testing

/// An engine started on a store that an earlier life left: whatever the policy, what
/// waits is sent with no new event and no flush asked for (a backlog sat idle for days
/// before the batcher looked at the store when it started).
@Suite("Engine started on a store left by an earlier life", .timeLimit(.minutes(1)))
struct RestartFromStoreTests {
    let clock = ManualClock()
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }

    init() throws {
        store = try TemporaryStore("restart")
    }

    var path: String { directory + "/queue.sqlite" }

    /// Leaves `count` events in the store, as a process that queued them and ended would.
    func leaveBacklog(_ count: Int, paused: String? = nil) async throws -> [String] {
        let queue = try SQLiteEventQueue(path: path)
        var ids: [String] = []
        for index in 0..<count {
            let event = Event(name: "e\(index)", properties: ["index": .int(index)])
            ids.append(event.messageId)
            _ = queue.append(PendingEvent(messageId: event.messageId, name: "e\(index)", payload: event.jsonBytes, createdAt: .now()))
        }
        await queue.waitForPendingWrites()
        if let paused { try await queue.recordPause(true, destination: paused) }
        #expect(queue.depth.events == count)
        return ids
    }

    func makeEngine(policy: FlushPolicy, sender: RecordingSender) throws -> BeaconEngine<ManualClock> {
        BeaconEngine(
            queue: try SQLiteEventQueue(path: path), destination: Destination(sender: sender),
            settings: EngineSettings(policy: policy, batchSize: 100), clock: clock, random: { 0 },
            observerSleep: { _ in try await Task.sleep(for: .seconds(3600)) })
    }

    func running(_ engine: BeaconEngine<ManualClock>, _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await body()
            group.cancelAll()
        }
    }

    /// The policies the issue names, and how long each may wait before it must send (nil: at once).
    static let policies: [(String, FlushPolicy, Duration?)] = [
        ("every 1s", .interval(.seconds(1)), .seconds(1)),
        ("count 100 or every 1s", .any([.count(100), .interval(.seconds(1))]), nil),
        ("count 10", .count(10), nil),
        ("default", .default, nil),
        ("every 10s with fewer events than any count", .any([.count(1000), .interval(.seconds(10))]), .seconds(10)),
    ]

    @Test("a backlog of 500 is delivered by itself", arguments: policies.indices)
    func backlogIsDeliveredWithNoNewEvent(_ index: Int) async throws {
        let (label, policy, wait) = Self.policies[index]
        let ids = try await leaveBacklog(500)
        let sender = RecordingSender()
        let engine = try makeEngine(policy: policy, sender: sender)
        try await running(engine) {
            if let wait {
                // The policy's timer is armed at start for the backlog, and nothing leaves before it.
                await clock.waitForSleepers(1)
                #expect(clock.nextDeadline == ManualClock.Instant(offset: wait), "\(label)")
                #expect(sender.batches.isEmpty, "\(label): sent before the interval")
                clock.advance(by: wait)
            }
            let batches = await sender.waitForSends(5)
            #expect(batches.flatMap(\.events).map(\.messageId) == ids, "\(label)")
            _ = await engine.observer.firstSnapshot { $0.depth == 0 }
            #expect(engine.queue.depth.events == 0, "\(label)")
        }
    }

    /// What else an earlier life may have left beside a backlog.
    enum Leftover: String, CaseIterable, Sendable {
        case nothing
        /// Dead letters of an earlier drain.
        case deadLetters
        /// A store an older Beacon wrote (before the `v5-pauses` migration).
        case olderSchema
        /// A queue at its bound.
        case fullQueue
    }

    @Test("a backlog beside what an earlier life left is delivered by itself", arguments: Leftover.allCases)
    func backlogBesideLeftovers(_ leftover: Leftover) async throws {
        let ids = try await leaveBacklog(500)
        switch leftover {
        case .nothing, .fullQueue:
            break
        case .deadLetters:
            try await StoreFile.open(path).write { db in
                try db.execute(sql: """
                    INSERT INTO dead_letters (seq, destination, message_id, name, payload, reason, status, failed_at)
                    VALUES (100000, 'default', 'old-letter', 'Old', CAST('{"event":"Old"}' AS BLOB), 'HTTP 400: refused', 400, 1764000000000)
                    """)
            }
        case .olderSchema:
            try await StoreFile.open(path).write { db in
                try db.execute(sql: "DROP TABLE destination_pauses; DELETE FROM grdb_migrations WHERE identifier = 'v5-pauses'")
            }
        }
        var configuration = SQLiteEventQueue.Configuration()
        if leftover == .fullQueue { configuration.maxQueuedEvents = 500 }
        let sender = RecordingSender()
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: path, configuration: configuration), destination: Destination(sender: sender),
            settings: EngineSettings(policy: .interval(.seconds(1)), batchSize: 100), clock: clock, random: { 0 },
            observerSleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        try await running(engine) {
            await clock.waitForSleepers(1)
            #expect(sender.batches.isEmpty)
            clock.advance(by: .seconds(1))
            let batches = await sender.waitForSends(5)
            #expect(batches.flatMap(\.events).map(\.messageId) == ids, "\(leftover)")
            _ = await engine.observer.firstSnapshot { $0.depth == 0 }
            let letters = try await engine.queue.deadLetters(limit: 10)
            #expect(letters.map(\.event.messageId) == (leftover == .deadLetters ? ["old-letter"] : []), "\(leftover)")
        }
    }

    @Test func aRecordedPauseHoldsTheBacklogUntilResumed() async throws {
        let ids = try await leaveBacklog(50, paused: Destination.defaultName)
        let sender = RecordingSender()
        let engine = try makeEngine(policy: .count(10), sender: sender)
        try await running(engine) {
            _ = await engine.observer.firstSnapshot { snapshot in
                snapshot.destinations.contains { $0.name == Destination.defaultName && $0.state == .pausedByOperator }
            }
            clock.advance(by: .seconds(3600))
            #expect(sender.batches.isEmpty, "a paused destination sent")
            _ = try await engine.resume(destination: nil)
            let batches = await sender.waitForSends(1)
            #expect(batches.flatMap(\.events).map(\.messageId) == Array(ids.prefix(batches.flatMap(\.events).count)))
            _ = await engine.observer.firstSnapshot { $0.depth == 0 }
            #expect(sender.batches.flatMap(\.events).map(\.messageId) == ids)
        }
    }

    /// A status asked before the batcher reports (an engine starting on a store left paused)
    /// does not say idle: the pause is restored as it starts, and until then it is not known.
    @Test func aStatusBeforeTheBatcherReportsSaysStartingNotIdle() async throws {
        _ = try await leaveBacklog(5, paused: Destination.defaultName)
        let engine = try makeEngine(policy: .count(10), sender: RecordingSender())
        let before = await engine.statusReport()
        #expect(before.destinations.map(\.code) == [.starting])
        #expect(before.destinations.first?.state == "starting")
        #expect(before.destinations.first?.pending == 5, "what is known is shown: the backlog")
        try await running(engine) {
            _ = await engine.observer.firstSnapshot { snapshot in
                snapshot.destinations.contains { $0.name == Destination.defaultName && $0.state == .pausedByOperator }
            }
            #expect(await engine.statusReport().destinations.map(\.code) == [.pausedByOperator])
        }
    }
}

@_spi(Testing) import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Testing

/// Real SQLite files in a temporary directory.
@Suite("SQLite queue", .timeLimit(.minutes(1)))
struct SQLiteQueueTests {
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }

    init() throws {
        store = try TemporaryStore("tests")
    }

    var path: String { directory + "/queue.sqlite" }

    func event(_ index: Int) -> PendingEvent {
        let event = Event(name: "e\(index)", properties: ["index": .int(index), "pad": "0123456789012345678901234567890123456789"])
        return PendingEvent(messageId: event.messageId, name: "e\(index)", payload: event.jsonBytes, createdAt: .now())
    }

    @Test func eventsSurviveReopeningInOrder() async throws {
        var ids: [String] = []
        do {
            let queue = try SQLiteEventQueue(path: path)
            for index in 0..<2500 {
                let pending = event(index)
                ids.append(pending.messageId)
                _ = queue.append(pending)
            }
            await queue.waitForPendingWrites()
            #expect(queue.depth.events == 2500)
        }
        let reopened = try SQLiteEventQueue(path: path)
        #expect(reopened.depth.events == 2500)
        let head = try await reopened.peek(limit: 3000, maxBytes: .max)
        #expect(head.map(\.messageId) == ids)
        #expect(head.map(\.sequence) == Array(1...2500))
    }

    @Test("durability sets the writer's synchronous: NORMAL for process-crash, FULL for power-loss",
          arguments: [(SQLiteEventQueue.Durability.processCrash, 1), (.powerLoss, 2)])
    func durabilitySetsSynchronous(durability: SQLiteEventQueue.Durability, synchronous: Int) async throws {
        var configuration = SQLiteEventQueue.Configuration()
        configuration.durability = durability
        let queue = try SQLiteEventQueue(path: path, configuration: configuration)
        #expect(try await queue.writerSynchronous() == synchronous)
        // Still so after the writer committed events (nothing resets it per transaction).
        for index in 0..<3 { _ = queue.append(event(index)) }
        await queue.waitForPendingWrites()
        #expect(try await queue.writerSynchronous() == synchronous)
    }

    @Test func committedReturnsOnlyAfterTheRowIsReadableByAnotherConnection() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        let receipt = try tracker.track("Durable", properties: ["k": "v"])
        try await receipt.committed()
        let other = try StoreFile.open(path)
        let count = try await other.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM events WHERE message_id = ?", arguments: [receipt.messageId]) }
        #expect(count == 1)
    }

    @Test func peekHonoursCountAndBytesAndSettleRemoves() async throws {
        let queue = try SQLiteEventQueue(path: path)
        for index in 0..<10 { _ = queue.append(event(index)) }
        await queue.waitForPendingWrites()
        let size = try await queue.peek(limit: 1, maxBytes: .max)[0].payload.count
        #expect(try await queue.peek(limit: 4, maxBytes: .max).count == 4)
        #expect(try await queue.peek(limit: 10, maxBytes: size * 3 + 1).count == 3)
        #expect(try await queue.peek(limit: 10, maxBytes: 1).count == 1)  // always at least one
        let head = try await queue.peek(limit: 4, maxBytes: .max)
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: "default", startedAt: .now(), duration: .milliseconds(3), events: 4,
            bytes: 4 * size, attempt: 1, status: 200, outcome: .sent, error: nil)
        try await queue.settle(BatchSettlement(
            record: record, delivered: head.prefix(3).map(\.sequence),
            deadLetters: [DeadLetter(event: head[3], reason: "bad", destination: "default", status: 400, failedAt: .now())]))
        #expect(queue.depth.events == 6)
        #expect(queue.depth.totals.delivered == 3)
        #expect(queue.depth.totals.deadLettered == 1)
        #expect(try await queue.peek(limit: 1, maxBytes: .max)[0].sequence == 5)
        #expect(try await queue.recentBatches(limit: 5).map(\.id) == [record.id])
        #expect(try await queue.deadLetters(limit: 5).map(\.event.sequence) == [4])
        let reopened = try SQLiteEventQueue(path: path)
        #expect(reopened.depth == QueueDepth(events: 6, bytes: 6 * size, buffered: 0, totals: QueueTotals(
            accepted: 0, committed: 10, delivered: 3, deadLettered: 1, dropped: 0),
            destinations: ["default": DestinationDepth(pending: 6, delivered: 3, deadLettered: 1)], deadLetters: 1))
        #expect(reopened.makeBatchID() == record.id + 1)
    }

    @Test func aSettleThatFailsPartWayChangesNothingAndTheNextOneLands() async throws {
        let queue = try SQLiteEventQueue(path: path)
        for index in 0..<5 { _ = queue.append(event(index)) }
        await queue.waitForPendingWrites()
        let head = try await queue.peek(limit: 5, maxBytes: .max)
        // The history row is written after the events are deleted, in the same transaction.
        try await queue.executeOnWriter("""
            CREATE TRIGGER fail_history BEFORE INSERT ON batches
            BEGIN SELECT RAISE(ABORT, 'injected failure'); END
            """)
        func settlement() -> BatchSettlement {
            BatchSettlement(
                record: BatchRecord(
                    id: queue.makeBatchID(), destination: "default", startedAt: .now(), duration: .milliseconds(1), events: 5,
                    bytes: 1, attempt: 1, status: 200, outcome: .sent, error: nil),
                delivered: head.map(\.sequence))
        }
        await #expect(throws: StorageError.self) { try await queue.settle(settlement()) }
        #expect(queue.depth.events == 5)
        #expect(queue.depth.totals.delivered == 0)
        #expect(try await queue.peek(limit: 10, maxBytes: .max).map(\.sequence) == head.map(\.sequence))
        try await queue.executeOnWriter("DROP TRIGGER fail_history")
        try await queue.settle(settlement())
        #expect(queue.depth.events == 0)
        #expect(queue.depth.totals.delivered == 5)
        let reopened = try SQLiteEventQueue(path: path)
        #expect(reopened.depth.events == 0)
        #expect(reopened.depth.totals.delivered == 5)
    }

    @Test func overflowDropsTheOldestAndCountsThem() async throws {
        var configuration = SQLiteEventQueue.Configuration()
        configuration.maxQueuedEvents = 100
        let queue = try SQLiteEventQueue(path: path, configuration: configuration)
        let facts = queue.facts()
        for index in 0..<250 { _ = queue.append(event(index)) }
        await queue.waitForPendingWrites()
        #expect(queue.depth.events == 100)
        #expect(queue.depth.totals.dropped == 150)
        let drops = facts.takeAvailable().reduce(0) { total, fact in
            if case .dropped(let count, _, _) = fact { return total + count }
            return total
        }
        #expect(drops == 150)
        #expect(try await queue.peek(limit: 1, maxBytes: .max)[0].name == "e150")
    }

    @Test func readOnlyStoreHoldsEventsInMemoryAndRecovers() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let engine = BeaconEngine(queue: queue, destination: Destination(sender: RecordingSender()), settings: EngineSettings(policy: .manual))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await queue.executeOnWriter("PRAGMA query_only = 1")
            for index in 0..<20 { try engine.tracker.track("e\(index)") }
            let faulted = await engine.observer.firstSnapshot { $0.storageProblem?.kind == .readOnly && $0.buffered == 20 }
            #expect(faulted?.depth == 0)
            #expect(faulted?.totals.accepted == 20)
            try await queue.executeOnWriter("PRAGMA query_only = 0")
            let recovered = await engine.observer.firstSnapshot { $0.storageProblem == nil && $0.depth == 20 }
            #expect(recovered?.buffered == 0)
            try engine.tracker.track("after recovery")
            await queue.waitForPendingWrites()
            group.cancelAll()
        }
        #expect(try SQLiteEventQueue(path: path).depth.events == 21)
    }

    @Test func fullDiskHoldsEventsInMemoryAndRecovers() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let engine = BeaconEngine(queue: queue, destination: Destination(sender: RecordingSender()), settings: EngineSettings(policy: .manual))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            let pages = try await StoreFile.open(path).read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 }
            try await queue.executeOnWriter("PRAGMA max_page_count = \(pages)")
            // 1,500 events of about 530 bytes each (``PendingEvent/memoryCost``): under the
            // memory buffer's 1 MiB, so all of them wait there for the disk.
            for index in 0..<1500 { try engine.tracker.track("e\(index)", properties: ["pad": .string(String(repeating: "x", count: 100))]) }
            let full = await engine.observer.firstSnapshot { $0.storageProblem?.kind == .diskFull }
            #expect(full != nil)
            #expect((full?.buffered ?? 0) > 0)
            try await queue.executeOnWriter("PRAGMA max_page_count = 1073741823")
            let recovered = await engine.observer.firstSnapshot(within: .seconds(30), where: { $0.storageProblem == nil && $0.depth == 1500 })
            let last = await engine.observer.snapshot
            #expect(recovered != nil, "not recovered; last: depth \(last.depth), buffered \(last.buffered), \(String(describing: last.storageProblem)) \(last.totals) \(queue.depth)")
            group.cancelAll()
        }
        #expect(try SQLiteEventQueue(path: path).depth.events == 1500)
    }

    @Test func lockedStoreHoldsEventsInMemoryAndRecovers() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let engine = BeaconEngine(queue: queue, destination: Destination(sender: RecordingSender()), settings: EngineSettings(policy: .manual))
        // It waits for the engine's own writes (registering its destination) to take the lock.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let other = try DatabaseQueue(path: path, configuration: configuration)
        let release = DispatchSemaphore(value: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            // Another connection takes the write lock and holds it on a thread of its own.
            let holding = await withCheckedContinuation { (held: CheckedContinuation<Bool, Never>) in
                Thread.detachNewThread {
                    var resumed = false
                    do {
                        try other.writeWithoutTransaction { db in
                            try db.inTransaction(.immediate) {
                                resumed = true
                                held.resume(returning: true)
                                release.wait()
                                return .rollback
                            }
                        }
                    } catch {
                        Issue.record("lock holder failed: \(error)")
                        if !resumed { held.resume(returning: false) }
                    }
                }
            }
            try #require(holding)
            for index in 0..<10 { try engine.tracker.track("e\(index)") }
            let lockedSeen = await engine.observer.firstSnapshot(within: .seconds(30), where: { $0.storageProblem?.kind == .locked })
            var last = await engine.observer.snapshot
            #expect(lockedSeen != nil, "the lock was not reported; last: depth \(last.depth), buffered \(last.buffered), \(String(describing: last.storageProblem)) \(last.totals) \(queue.depth)")
            release.signal()
            let recovered = await engine.observer.firstSnapshot(within: .seconds(30), where: { $0.storageProblem == nil && $0.depth == 10 })
            last = await engine.observer.snapshot
            #expect(recovered != nil, "not recovered; last: depth \(last.depth), buffered \(last.buffered), \(String(describing: last.storageProblem)) \(last.totals) \(queue.depth)")
            group.cancelAll()
        }
    }

    @Test func removedFileIsReportedWithoutCrashing() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let engine = BeaconEngine(queue: queue, destination: Destination(sender: RecordingSender()), settings: EngineSettings(policy: .manual))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await engine.tracker.track("before").committed()
            try FileManager.default.removeItem(atPath: path)
            try engine.tracker.track("after")
            let snapshot = await engine.observer.firstSnapshot { $0.storageProblem?.kind == .fileRemoved && $0.buffered == 1 }
            #expect(snapshot?.storageProblem?.message.contains(path) == true)
            group.cancelAll()
        }
    }

    @Test func aFileThatIsNotAStoreIsATypedError() throws {
        try Data("this is not sqlite, just text that is long enough to look like a header....".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: StorageError.self) { _ = try SQLiteEventQueue(path: path) }
        #expect(throws: StorageError.self) { _ = try SQLiteEventQueue(path: directory + "/missing/dir/queue.sqlite") }
    }
}

@Suite("SQLite queue counters under concurrent commits and settles", .timeLimit(.minutes(1)))
struct SQLiteQueueCounterTests {
    /// Regression: a commit used counters read before its transaction, so a settle that
    /// committed in between was overwritten and depth drifted above the real row count.
    @Test func countersMatchTheRowsWhileCommitsAndSettlesInterleave() async throws {
        let store = try TemporaryStore("race")
        defer { withExtendedLifetime(store) {} }  // its files, removed with it, are used to the end
        let path = store.path
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<20_000 { try tracker.track("e", properties: ["i": .int(index)]) }
                await queue.waitForPendingWrites()
            }
            group.addTask {
                var settled = 0
                while settled < 20_000 {
                    let batch = try await queue.peek(limit: 50, maxBytes: .max)
                    guard !batch.isEmpty else { continue }
                    let record = BatchRecord(
                        id: queue.makeBatchID(), destination: Destination.defaultName, startedAt: .now(), duration: .zero, events: batch.count,
                        bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
                    try await queue.settle(BatchSettlement(record: record, delivered: batch.map(\.sequence)))
                    settled += batch.count
                }
            }
            try await group.waitForAll()
        }
        let rows = try await StoreFile.open(path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM events") ?? -1 }
        #expect(rows == 0)
        #expect(queue.depth.events == rows)
        #expect(queue.depth.totals.delivered == 20_000)
        #expect(try SQLiteEventQueue(path: path).depth.events == 0)
    }
}

@_spi(Testing) import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Logging
import Testing

/// The queue on a store that keeps failing or hangs: `track` never blocks for long,
/// waits can be bounded, drops are counted in the store, and the log stays short.
@Suite("Storage faults in the engine", .timeLimit(.minutes(1)))
struct StorageFaultTests {
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }
    var path: String { directory + "/queue.sqlite" }

    init() throws {
        store = try TemporaryStore("faults")
    }

    func configuration(capacity: Int) -> SQLiteEventQueue.Configuration {
        var configuration = SQLiteEventQueue.Configuration()
        configuration.memoryBufferCapacity = capacity
        configuration.maxTrackWait = .milliseconds(200)
        return configuration
    }

    func storedDropped() async throws -> Int? {
        try await StoreFile.open(path).read { db in try Int.fetchOne(db, sql: "SELECT dropped FROM queue_state") }
    }

    @Test("drops from memory while the store fails reach the store's dropped counter once it recovers")
    func dropsArePersisted() async throws {
        let queue = try SQLiteEventQueue(path: path, configuration: configuration(capacity: 10))
        let tracker = Tracker(queue: queue)
        try await queue.executeOnWriter("PRAGMA query_only = 1")
        var receipts: [TrackReceipt] = []
        for index in 0..<25 { receipts.append(try tracker.track("e\(index)")) }
        #expect(await queue.waitForPendingWrites(timeout: .milliseconds(300)) == false, "the store is failing")
        #expect(queue.droppedFromMemory >= 15)
        #expect(queue.depth.totals.dropped == queue.droppedFromMemory)
        try await queue.executeOnWriter("PRAGMA query_only = 0")
        #expect(await queue.waitForPendingWrites(timeout: .seconds(10)))
        let dropped = queue.droppedFromMemory
        #expect(try await storedDropped() == dropped, "the first commit that works records the drops")
        #expect(try await StoreReader(path: path).status().totals.dropped == dropped)
        #expect(queue.depth.totals.dropped == dropped, "counted once")
        var committed = 0
        for receipt in receipts where await queue.waitForCommit(receipt.ticket, timeout: .zero) == .committed { committed += 1 }
        #expect(committed + dropped == 25)
    }

    @Test("track does not hang on a commit that does not finish; waits end at their deadline")
    func stuckWriter() async throws {
        var configuration = configuration(capacity: 10)
        configuration.busyTimeout = .seconds(30)  // a commit behind another process's lock hangs for 30 s
        let queue = try SQLiteEventQueue(path: path, configuration: configuration)
        let tracker = Tracker(queue: queue)
        let other = try StoreFile.open(path)
        let release = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                try? other.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        held.resume()
                        release.wait()
                        return .rollback
                    }
                }
            }
        }
        defer { release.signal() }
        let started = ContinuousClock.now
        for index in 0..<40 { try tracker.track("e\(index)") }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(5), "40 tracks took \(elapsed) on a stuck store")
        #expect(queue.droppedFromMemory > 0, "past maxTrackWait the oldest are dropped, not waited for")
        let waitStart = ContinuousClock.now
        #expect(await queue.waitForPendingWrites(timeout: .milliseconds(200)) == false)
        let last = try tracker.track("last")
        #expect(await queue.waitForCommit(last.ticket, progressTimeout: .milliseconds(300)) == .timedOut)
        // 0.5 s of deadlines against the 30 s busy timeout: a bound far from both, so a
        // loaded machine (the suite shares two cores) cannot break it.
        #expect(ContinuousClock.now - waitStart < .seconds(15), "the waits ended at their deadlines, not the busy timeout's")
        release.signal()
        #expect(await queue.waitForCommit(last.ticket, timeout: .seconds(30)) == .committed, "and the store recovers")
    }

    @Test("close drops what is still in memory and records it when a small write still fits")
    func closeRecordsDrops() async throws {
        let queue = try SQLiteEventQueue(path: path, configuration: configuration(capacity: 100))
        let tracker = Tracker(queue: queue)
        try await tracker.track("first").committed()
        let pages = try await StoreFile.open(path).read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 }
        try await queue.executeOnWriter("PRAGMA max_page_count = \(pages)")  // full: no new page for a group
        for index in 0..<50 {
            try tracker.track("e\(index)", properties: ["pad": .string(String(repeating: "x", count: 500))])
        }
        #expect(await queue.waitForPendingWrites(timeout: .milliseconds(300)) == false)
        #expect(queue.currentFailure?.kind == .diskFull)
        let committed = try await StoreFile.open(path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM events") ?? 0 }
        let report = await queue.close(timeout: .seconds(5))
        #expect(report.discarded > 0)
        #expect(report.discarded == 51 - committed, "what is not stored is discarded")
        #expect(report.droppedFromMemory == report.discarded)
        #expect(report.recorded, "one counter update fits in the pages the store has")
        #expect(try await storedDropped() == report.discarded)
        // Written by the writer, as every write: its counters and kept bookkeeping have them.
        #expect(queue.depth.totals.dropped == report.discarded, "\(queue.depth.totals)")
        #expect(try await queue.keptBookkeepingMatchesStore() == true)
    }

    @Test("close says when the drops could not be recorded")
    func closeOnAStoreThatTakesNoWrite() async throws {
        let queue = try SQLiteEventQueue(path: path, configuration: configuration(capacity: 100))
        try await queue.executeOnWriter("PRAGMA query_only = 1")
        for index in 0..<5 { try Tracker(queue: queue).track("e\(index)") }
        #expect(await queue.waitForPendingWrites(timeout: .milliseconds(200)) == false)
        let report = await queue.close(timeout: .seconds(5))
        #expect(report.discarded == 5)
        #expect(report.recorded == false)
        #expect(try await storedDropped() == 0)
    }

    @Test("a failing store logs one line per change of condition, not one per event")
    func logIsRateLimited() async throws {
        let lines = LogLines()
        let logger = Logger(label: "test.queue") { _ in CapturingLogHandler(lines: lines) }
        let queue = try SQLiteEventQueue(path: path, configuration: configuration(capacity: 10), logger: logger)
        try await queue.executeOnWriter("PRAGMA query_only = 1")
        let tracker = Tracker(queue: queue)
        for index in 0..<2000 { try tracker.track("e\(index)") }
        #expect(await queue.waitForPendingWrites(timeout: .milliseconds(500)) == false)
        #expect(queue.droppedFromMemory >= 1990)
        try await queue.executeOnWriter("PRAGMA query_only = 0")
        // This wait timed out once in about ten full runs; say what the writer saw if it does again.
        let recovered = await queue.waitForPendingWrites(timeout: .seconds(10))
        #expect(recovered, "still failing: \(String(describing: queue.currentFailure)); log: \(lines.all)")
        let logged = lines.all
        // The failure, the first drop, the recovery (with the drop total): no line per event.
        #expect(logged.count <= 4, "\(logged.count) lines: \(logged.prefix(5))")
        #expect(logged.contains { $0.contains("store write failed") })
        #expect(logged.contains { $0.contains("work again") && $0.contains("\(queue.droppedFromMemory)") }, "\(queue.droppedFromMemory): \(logged)")
    }

    @Test("the memory buffer is bounded by bytes too: a failing store keeps about memoryBufferBytes, the oldest dropped")
    func memoryBufferIsBoundedByBytes() async throws {
        var configuration = configuration(capacity: 10_000)
        // 20 KB: room for about 12 events of 1.5 KB, far under the 10,000-event capacity.
        configuration.memoryBufferBytes = 20_000
        let queue = try SQLiteEventQueue(path: path, configuration: configuration)
        let tracker = Tracker(queue: queue)
        try await queue.executeOnWriter("PRAGMA query_only = 1")
        let pad = JSONValue.string(String(repeating: "x", count: 1_500))
        var receipts: [TrackReceipt] = []
        for index in 0..<40 { receipts.append(try tracker.track("e\(index)", properties: ["pad": pad])) }
        #expect(await queue.waitForPendingWrites(timeout: .milliseconds(300)) == false, "the store is failing")
        let dropped = queue.droppedFromMemory
        #expect(dropped >= 40 - 14, "at most about 20 KB stays in memory; \(dropped) of 40 dropped")
        #expect(dropped < 40 - 5, "and the buffer still holds what fits; \(dropped) of 40 dropped")
        try await queue.executeOnWriter("PRAGMA query_only = 0")
        #expect(await queue.waitForPendingWrites(timeout: .seconds(10)))
        var committed: [Int] = []
        for (index, receipt) in receipts.enumerated() where await queue.waitForCommit(receipt.ticket, timeout: .zero) == .committed {
            committed.append(index)
        }
        #expect(committed.count + dropped == 40)
        #expect(committed == Array((40 - committed.count)..<40), "the oldest were dropped, the newest kept")
    }

    @Test("events larger than memoryBufferBytes are taken one at a time: a healthy store is waited for, nothing dropped")
    func oversizedEventsWaitForRoom() async throws {
        var configuration = configuration(capacity: 10)
        configuration.memoryBufferBytes = 1
        configuration.maxTrackWait = .seconds(20)  // a slow commit under load is waited for, not dropped
        let queue = try SQLiteEventQueue(path: path, configuration: configuration)
        let tracker = Tracker(queue: queue)
        let pad = JSONValue.string(String(repeating: "y", count: 4_000))
        for index in 0..<20 { try tracker.track("big\(index)", properties: ["pad": pad]) }
        #expect(await queue.waitForPendingWrites(timeout: .seconds(20)))
        #expect(queue.droppedFromMemory == 0, "a healthy store is waited for instead of dropping")
        #expect(queue.depth.events == 20)
    }

    @Test("a store with a newer schema is refused at open, naming the versions, and left as it was")
    func newerSchemaIsRefused() async throws {
        _ = try SQLiteEventQueue(path: path)
        try await StoreFile.open(path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')")
        }
        let error = #expect(throws: StorageError.self) { _ = try SQLiteEventQueue(path: path) }
        #expect(error?.kind == .newerSchema)
        #expect(error?.message.contains("schema version 9") == true, "\(String(describing: error))")
        #expect(error?.message.contains("version 8") == true)
        let read = #expect(throws: StorageError.self) { _ = try StoreReader(path: path) }
        #expect(read?.kind == .newerSchema)
    }

    @Test("a damaged store error carries the table and column")
    func damageIsTyped() async throws {
        _ = try SQLiteEventQueue(path: path)
        try await StoreFile.open(path).write { db in try db.execute(sql: "UPDATE queue_state SET depth = 'abc'") }
        let error = #expect(throws: StorageError.self) { _ = try SQLiteEventQueue(path: path) }
        #expect(error?.kind == .damaged)
        #expect(error?.damage == StorageError.Damage(table: "queue_state", column: "depth"))
    }

    @Test("a new store locked by another connection while the queue switches it to WAL: the open waits, then succeeds")
    func openWaitsForALockOnANewStore() async throws {
        // A connection in SQLite's default journal mode holds the write lock on the new
        // file, as a process that is creating the store does. Switching to WAL then meets
        // "database is locked" at once, without SQLite's busy handler waiting.
        // Its COMMIT meets the open's read lock as the open retries: it waits it out
        // rather than failing with the transaction still open (which GRDB stops on).
        var patient = Configuration()
        patient.busyMode = .timeout(10)
        let holder = try DatabaseQueue(path: path, configuration: patient)
        let (released, release) = AsyncStream<Result<Void, any Error>>.makeStream()
        // Held for a second on a thread of its own, in one access (GRDB lets no transaction
        // outlive one): the open below starts within it and must wait it out.
        await withCheckedContinuation { (locked: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let result = Result {
                    try holder.writeWithoutTransaction { db in
                        try db.execute(sql: "BEGIN IMMEDIATE; CREATE TABLE holder (x)")
                        locked.resume()
                        Thread.sleep(forTimeInterval: 1)
                        do {
                            try db.execute(sql: "COMMIT")
                        } catch {
                            try? db.rollback()
                            throw error
                        }
                    }
                }
                release.yield(result)
            }
        }
        let started = ContinuousClock.now
        let queue = try SQLiteEventQueue(path: path)
        let waited = ContinuousClock.now - started
        for await result in released {
            try result.get()
            break
        }
        #expect(waited >= .milliseconds(500), "the open did not meet the lock (\(waited)): the test proves nothing")
        let receipt = try Tracker(queue: queue).track("after the lock")
        try await receipt.committed()
        #expect(queue.depth.events == 1)
    }

    @Test("SQLite's limit on a store's path is the one Beacon names: the longest opens, one byte more is refused saying why")
    func pathLengthLimit() async throws {
        let longest = try LongPath.make(length: StorePathLength.maxBytes, under: directory)
        #expect(longest.utf8.count == StorePathLength.maxBytes)
        #expect(StorePathLength.problem(longest) == nil)
        let queue = try SQLiteEventQueue(path: longest)
        try await Tracker(queue: queue).track("at the limit").committed()
        #expect(queue.depth.events == 1)
        _ = await queue.close()
        #expect(try await StoreReader(path: longest).status(batchLimit: 0, deadLetterLimit: 0).depth == 1)

        let tooLong = try LongPath.make(length: StorePathLength.maxBytes + 1, under: directory)
        #expect(tooLong.utf8.count == StorePathLength.maxBytes + 1)
        // SQLite itself refuses it: the limit Beacon names is SQLite's, not a guess.
        #expect(throws: DatabaseError.self) { try StoreFile.open(tooLong) }
        do {
            _ = try SQLiteEventQueue(path: tooLong)
            Issue.record("a store opened at \(tooLong.utf8.count) bytes")
        } catch {
            #expect(error.kind == .ioError)
            #expect(error.message.contains("is \(StorePathLength.maxBytes + 1) bytes long"), "\(error)")
            #expect(error.message.contains("at most \(StorePathLength.maxBytes) bytes"), "\(error)")
        }
        #expect(throws: StorageError.self) { try StoreReader(path: tooLong) }
        #expect(!FileManager.default.fileExists(atPath: tooLong))
    }

    @Test("a relative path is measured as SQLite measures it, made absolute")
    func relativePathLength() {
        let working = FileManager.default.currentDirectoryPath
        let room = StorePathLength.maxBytes - working.utf8.count - 1
        #expect(StorePathLength.problem(String(repeating: "r", count: room)) == nil)
        let message = StorePathLength.problem(String(repeating: "r", count: room + 1))
        #expect(message?.contains("\(StorePathLength.maxBytes + 1) bytes long once made absolute") == true, "\(message ?? "nil")")
    }
}

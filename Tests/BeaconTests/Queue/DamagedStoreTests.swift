import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Testing

/// Values read back from the store are outside input: a wrong type or an out-of-range
/// number in any column is reported as a damaged store naming the table and column,
/// never a trap (GRDB's `row[i] as Int` traps on them).
@Suite("Damaged stores", .timeLimit(.minutes(1)))
struct DamagedStoreTests {
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }
    var path: String { directory + "/queue.sqlite" }

    init() throws {
        store = try TemporaryStore("damaged")
    }

    /// A store with 3 events, one destination and one batch in its history.
    func makeStore() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        for index in 0..<3 { try await tracker.track("e\(index)").committed() }
        try await queue.register(destination: "default")
        try await StoreFile.open(path).write { db in
            try db.execute(sql: """
                INSERT INTO batches (id, destination, started_at, duration_us, events, bytes, attempt, status, outcome, error)
                VALUES (1, 'default', 1700000000000, 1500, 3, 300, 1, 200, 'sent', NULL)
                """)
        }
    }

    func damage(_ sql: String) async throws {
        try await StoreFile.open(path).write { db in try db.execute(sql: sql) }
    }

    static let damages: [(sql: String, column: String)] = [
        ("UPDATE queue_state SET depth = 'abc'", "queue_state.depth"),
        ("UPDATE queue_state SET next_seq = 1e300", "queue_state.next_seq"),
        ("UPDATE queue_state SET next_seq = 9223372036854775807", "queue_state.next_seq"),
        ("UPDATE queue_state SET bytes = -9223372036854775808", "queue_state.bytes"),
        ("UPDATE destinations SET pending = x'00ff'", "destinations.pending"),
        ("UPDATE destinations SET cursor = 2.5", "destinations.cursor"),
    ]

    @Test("opening a damaged store throws a damaged StorageError naming table and column", arguments: 0..<damages.count)
    func openingThrows(_ index: Int) async throws {
        try await makeStore()
        try await damage(Self.damages[index].sql)
        let error = #expect(throws: StorageError.self) { _ = try SQLiteEventQueue(path: path) }
        #expect(error?.kind.rawValue == "damaged")
        #expect(error?.message.contains(Self.damages[index].column) == true, "\(String(describing: error))")
        let read = await #expect(throws: StorageError.self) { _ = try await StoreReader(path: path).status() }
        #expect(read?.kind.rawValue == "damaged")
        #expect(read?.message.contains(Self.damages[index].column) == true, "\(String(describing: read))")
    }

    /// The log's cursors are read by the first peek or write: values that would make its
    /// arithmetic overflow (a range spanning ±2^62, a negative floor) are damage, not a trap.
    @Test("a damaged floor or range of the log fails the peek and the reader, naming the column", arguments: [
        ("UPDATE queue_state SET floor_seq = -4611686018427387904", "queue_state.floor_seq"),
        ("INSERT INTO queue_gone VALUES (-4611686018427387904, 4611686018427387904)", "queue_gone.first_seq"),
        ("INSERT INTO destination_done VALUES ('default', 2, 9223372036854775807)", "destination_done.last_seq"),
        ("INSERT INTO queue_gone VALUES (5, 'abc')", "queue_gone.last_seq"),
    ])
    func damagedLogCursors(sql: String, column: String) async throws {
        try await makeStore()
        try await damage(sql)
        let queue = try SQLiteEventQueue(path: path)
        let error = await #expect(throws: StorageError.self) {
            _ = try await queue.peek(for: "default", after: nil, limit: 10, maxBytes: .max)
        }
        #expect(error?.kind.rawValue == "damaged")
        #expect(error?.message.contains(column) == true, "\(String(describing: error))")
        let read = await #expect(throws: StorageError.self) { _ = try await StoreReader(path: path).status() }
        #expect(read?.message.contains(column) == true, "\(String(describing: read))")
    }

    @Test("a wrong-typed column in the batch history or a dead letter fails the read, naming it",
          arguments: [
            ("UPDATE batches SET duration_us = 'slow'", "batches.duration_us"),
            ("UPDATE batches SET started_at = 1e300", "batches.started_at"),
            ("UPDATE batches SET attempt = 'first'", "batches.attempt"),
          ])
    func historyReadThrows(_ sql: String, _ column: String) async throws {
        try await makeStore()
        try await damage(sql)
        let queue = try SQLiteEventQueue(path: path)  // the history is not read at open
        let error = await #expect(throws: StorageError.self) { _ = try await queue.recentBatches(limit: 10) }
        #expect(error?.kind.rawValue == "damaged")
        #expect(error?.message.contains(column) == true, "\(String(describing: error))")
    }

    @Test("damage made under a running queue is reported as a storage problem, and nothing traps")
    func damageUnderARunningQueue() async throws {
        try await makeStore()
        let queue = try SQLiteEventQueue(path: path)
        let facts = queue.facts()
        try await damage("UPDATE queue_state SET committed = 'many'")
        let receipt = try Tracker(queue: queue).track("after the damage")
        var problem: StorageProblem?
        for await fact in facts {  // bounded by the suite's time limit
            if case .storageProblem(let reported) = fact {
                problem = reported
                break
            }
        }
        let reported = try #require(problem)
        #expect(reported.kind.rawValue == "damaged")
        #expect(reported.message.contains("queue_state.committed"))
        #expect(queue.depth.buffered == 1, "the event waits in memory, \(receipt.messageId)")
    }

    @Test("an event row at the end of the sequence range is damage when read, not an overflow later")
    func sequenceAtTheLimit() async throws {
        try await makeStore()
        try await damage("UPDATE segment_1 SET seq = 9223372036854775807 WHERE seq = 3")
        let queue = try SQLiteEventQueue(path: path)
        let error = await #expect(throws: StorageError.self) {
            _ = try await queue.peek(for: "default", after: nil, limit: 10, maxBytes: .max)
        }
        #expect(error?.kind.rawValue == "damaged")
        #expect(error?.message.contains("segment_1.seq") == true, "\(String(describing: error))")
    }

    @Test("a reader opening a store another process is creating waits for it; an empty file or another database is named as such")
    func readerOfANewStore() async throws {
        // An empty file, as `beacon track` leaves for an instant on a new path.
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let reading = Task { try await StoreReader(path: path).status() }
        let queue = try SQLiteEventQueue(path: path)
        try await Tracker(queue: queue).track("created meanwhile").committed()
        let status = try await reading.value
        #expect(status.depth <= 1)

        // Nobody creating it: said after the wait, and not called a foreign database.
        let empty = directory + "/empty.sqlite"
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        let started = ContinuousClock.now
        let error = await #expect(throws: StorageError.self) { _ = try await StoreReader(path: empty).status() }
        #expect(error?.message.contains("empty SQLite file, not yet a Beacon store") == true, "\(String(describing: error))")
        #expect(ContinuousClock.now - started >= StoreReader.creationPatience)

        let other = directory + "/other.sqlite"
        try await StoreFile.open(other).write { db in try db.execute(sql: "CREATE TABLE notes (text)") }
        let foreign = await #expect(throws: StorageError.self) { _ = try await StoreReader(path: other).status() }
        #expect(foreign?.message.contains("is an SQLite file but not a Beacon store") == true, "\(String(describing: foreign))")
    }
}

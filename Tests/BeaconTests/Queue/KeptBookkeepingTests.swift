@_spi(Benchmarks) @_spi(Testing) import Beacon
import BeaconWire
import Foundation
import Synchronization
import Testing

/// The queue's writer keeps the bookkeeping (segments, cursors, counters) in memory: the
/// commit, peek and settle paths read none of its tables, a drained batch costs a handful
/// of statements, and what another connection writes (a `beacon track` beside the
/// engine) is still seen, through the pager's data version.
@Suite("The queue's bookkeeping, kept in memory by its writer")
struct KeptBookkeepingTests {
    let queues: DestinationQueueTests

    init() throws {
        queues = try DestinationQueueTests()
    }

    /// Every statement the queue's connections start, in order.
    final class Statements: Sendable {
        let seen = Mutex<[String]>([])
        func take() -> [String] { seen.withLock { all in defer { all = [] }; return all } }
    }

    func open(_ statements: Statements? = nil, segmentEvents: Int = 16_384) throws -> SQLiteEventQueue {
        var configuration = SQLiteEventQueue.Configuration()
        configuration.segmentEvents = segmentEvents
        if let statements { configuration.statementObserver = { sql in
            let text = sql()
            statements.seen.withLock { $0.append(text) }
        } }
        return try SQLiteEventQueue(path: queues.path, configuration: configuration)
    }

    static func append(_ queue: SQLiteEventQueue, _ count: Int, from first: Int = 0) async {
        for index in first..<(first + count) {
            let event = Event(name: "e\(index)", properties: ["n": .int(index)])
            _ = queue.append(PendingEvent(messageId: event.messageId, name: event.name ?? "", payload: event.jsonBytes, createdAt: .now()))
        }
        await queue.waitForPendingWrites()
    }

    static func settle(_ queue: SQLiteEventQueue, _ events: [QueuedEvent], destination: String = "default") async throws {
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: destination, startedAt: .now(), duration: .zero, events: events.count,
            bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
        try await queue.settle(BatchSettlement(
            record: record, delivered: events.map(\.sequence), deadLetters: [], filtered: [], through: events.last?.sequence))
    }

    /// The tables that say where events are and how many: what a path must not read.
    static let bookkeepingTables = ["queue_state", "destinations", "destination_done", "queue_gone", "segments"]

    static func readsOfBookkeeping(_ statements: [String]) -> [String] {
        statements.filter { sql in
            let text = sql.lowercased()
            guard text.hasPrefix("select") else { return false }
            return bookkeepingTables.contains { text.contains("from \($0) ") || text.hasSuffix("from \($0)") || text.contains("from \($0)\n") }
        }
    }

    @Test("A drained 500-event batch: no read of the bookkeeping, at most 7 statements to read and settle it")
    func drainedBatchStatements() async throws {
        let statements = Statements()
        let queue = try open(statements)
        try await queue.register(destination: "default")
        await Self.append(queue, 2_000)
        _ = statements.take()
        var perBatch: [Int] = []
        for _ in 0..<4 {
            let batch = try await queue.peek(for: "default", after: nil, limit: 500, maxBytes: .max)
            #expect(batch.count == 500)
            try await Self.settle(queue, batch)
            let seen = statements.take()
            #expect(Self.readsOfBookkeeping(seen).isEmpty, "reads of the bookkeeping: \(Self.readsOfBookkeeping(seen))")
            perBatch.append(seen.count)
            #expect(seen.count <= 7, "\(seen.count) statements: \(seen.joined(separator: "\n"))")
            // Whether another connection wrote is asked of the pager, not with a statement.
            #expect(!seen.contains { $0.contains("data_version") }, "\(seen)")
        }
        #expect(queue.depth.events == 0)
        #expect(queue.bookkeepingReads.fromStore == 1, "read once, by the first transaction: \(queue.bookkeepingReads)")
        #expect(try await queue.keptBookkeepingMatchesStore() == true)
        _ = statements.take()  // the check's own reads
        // Commits read nothing either.
        await Self.append(queue, 300, from: 2_000)
        let commits = statements.take()
        #expect(!commits.isEmpty && Self.readsOfBookkeeping(commits).isEmpty, "\(Self.readsOfBookkeeping(commits))")
        #expect(queue.bookkeepingReads.fromStore == 1)
    }

    @Test("Events another connection commits are seen by the next transaction, and the kept bookkeeping follows")
    func anotherConnectionsWritesAreSeen() async throws {
        let engine = try open(segmentEvents: 4)
        try await engine.register(destination: "default")
        await Self.append(engine, 5)
        let before = engine.bookkeepingReads.fromStore
        // `beacon track` beside the engine: another queue over the same file.
        do {
            let other = try open(segmentEvents: 4)
            await Self.append(other, 7, from: 5)
            _ = await other.close()
        }
        #expect(await engine.refreshFromOtherProcesses() == 7)
        #expect(engine.bookkeepingReads.fromStore == before + 1, "\(engine.bookkeepingReads)")
        #expect(engine.depth.events == 12 && engine.depth.pending(for: "default") == 12)
        #expect(try await engine.keptBookkeepingMatchesStore() == true)
        let head = try await engine.peek(for: "default", after: nil, limit: 100, maxBytes: .max)
        #expect(head.map(\.sequence) == Array(1...12))
        try await Self.settle(engine, head)
        #expect(engine.depth.events == 0)
        #expect(try await engine.keptBookkeepingMatchesStore() == true)
        // And a commit of the engine's own right after another connection's, with no refresh between.
        do {
            let other = try open(segmentEvents: 4)
            await Self.append(other, 3, from: 12)
            _ = await other.close()
        }
        await Self.append(engine, 2, from: 15)
        #expect(engine.depth.events == 5 && engine.depth.totals.committed == 17, "\(engine.depth)")
        #expect(try await engine.keptBookkeepingMatchesStore() == true)
    }

    @Test("An operator's pause is written by the writer in its own transactions: the bookkeeping stays in memory, and the pause is in the store")
    func pausesGoThroughTheWriter() async throws {
        let queue = try open()
        try await queue.register(destination: "default")
        await Self.append(queue, 3)
        let before = queue.bookkeepingReads.fromStore
        try await queue.recordPause(true, destination: "default")
        await Self.append(queue, 1, from: 3)
        #expect(try await queue.pausedDestinations() == ["default"])
        try await queue.recordPause(false, destination: "default")
        await Self.append(queue, 1, from: 4)
        #expect(queue.bookkeepingReads.fromStore == before, "no transaction read the tables again: \(queue.bookkeepingReads)")
        #expect(try await queue.pausedDestinations().isEmpty)
        #expect(try await queue.keptBookkeepingMatchesStore() == true)
    }

    @Test("A sync import built on the queue writes through its writer; one on a connection of its own is another writer, seen as such")
    func syncImportsGoThroughTheWriter() async throws {
        let queue = try open()
        try await queue.register(destination: "default")
        await Self.append(queue, 3)
        let feed = { (token: String, id: String) in
            Array(#"{"plans": [{"id": "\#(id)", "n": 1}], "version_token": "\#(token)"}"#.utf8)
        }
        let before = queue.bookkeepingReads.fromStore
        let importer = SyncImporter(queue: queue)
        try await importer.apply(feed("v1", "a"))
        await Self.append(queue, 1, from: 3)
        #expect(queue.bookkeepingReads.fromStore == before, "the queue's next commit read no table: \(queue.bookkeepingReads)")
        #expect(try importer.versionToken == "v1")
        #expect(try importer.records(in: "plans").map(\.id) == ["a"])
        #expect(try await queue.keptBookkeepingMatchesStore() == true)
        // The same import through a connection of its own: the writer sees another writer.
        try await SyncImporter(path: queues.path).apply(feed("v2", "b"))
        await Self.append(queue, 1, from: 4)
        #expect(queue.bookkeepingReads.fromStore == before + 1, "\(queue.bookkeepingReads)")
        #expect(try importer.records(in: "plans").map(\.id) == ["a", "b"])
    }

    @Test("SQL run outside the writer's transactions is not trusted to leave the bookkeeping: the next transaction reads it")
    func sqlOutsideTransactionsForgetsTheBookkeeping() async throws {
        let queue = try open()
        try await queue.register(destination: "default")
        await Self.append(queue, 3)
        let before = queue.bookkeepingReads.fromStore
        try await queue.executeOnWriter("UPDATE queue_state SET dropped = dropped + 5 WHERE id = 1")
        await Self.append(queue, 1, from: 3)
        #expect(queue.bookkeepingReads.fromStore == before + 1)
        #expect(queue.depth.totals.dropped == 5, "the counters were read again: \(queue.depth.totals)")
        #expect(try await queue.keptBookkeepingMatchesStore() == true)
    }
}

import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Testing

/// Each destination's progress through one queue: the same contract for the SQLite
/// queue (a real file) and the in-memory queue.
@Suite("Destinations in the queue", .timeLimit(.minutes(1)))
struct DestinationQueueTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, memory
        var testDescription: String { rawValue }
    }

    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }

    init() throws {
        store = try TemporaryStore("destinations")
    }

    var path: String { directory + "/queue.sqlite" }

    func makeQueue(_ kind: Kind, maxQueuedEvents: Int = 1_000) throws -> any EventQueue {
        switch kind {
        case .sqlite:
            var configuration = SQLiteEventQueue.Configuration()
            configuration.maxQueuedEvents = maxQueuedEvents
            return try SQLiteEventQueue(path: path, configuration: configuration)
        case .memory:
            return InMemoryEventQueue(maxQueuedEvents: maxQueuedEvents)
        }
    }

    func fill(_ queue: any EventQueue, _ count: Int, from start: Int = 0) async {
        for index in start..<(start + count) {
            let event = Event(name: "e\(index)", properties: ["index": .int(index)])
            _ = queue.append(PendingEvent(messageId: event.messageId, name: "e\(index)", payload: event.jsonBytes, createdAt: .now()))
        }
        await queue.waitForPendingWrites()
    }

    func settle(
        _ queue: any EventQueue, _ destination: String, delivered: [QueuedEvent] = [], deadLettered: [QueuedEvent] = [],
        filtered: [QueuedEvent] = [], through: Int64? = nil
    ) async throws {
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: destination, startedAt: .now(), duration: .zero,
            events: delivered.count + deadLettered.count, bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
        let letters = deadLettered.map { DeadLetter(event: $0, reason: "refused", destination: destination, status: 400, failedAt: .now()) }
        try await queue.settle(BatchSettlement(
            record: record, delivered: delivered.map(\.sequence), deadLetters: letters, filtered: filtered.map(\.sequence),
            through: through))
    }

    @Test(arguments: Kind.allCases)
    func anEventLeavesOnlyWhenEveryDestinationIsDone(_ kind: Kind) async throws {
        let queue = try makeQueue(kind)
        try await queue.register(destination: "a")
        try await queue.register(destination: "b")
        await fill(queue, 10)
        let forA = try await queue.peek(for: "a", after: nil, limit: 10, maxBytes: .max)
        try await settle(queue, "a", delivered: forA)
        #expect(queue.depth.events == 10, "b has not had them yet")
        #expect(queue.depth.destinations["a"] == DestinationDepth(pending: 0, delivered: 10))
        #expect(queue.depth.destinations["b"] == DestinationDepth(pending: 10))
        #expect(try await queue.peek(for: "a", after: nil, limit: 10, maxBytes: .max).isEmpty)

        let forB = try await queue.peek(for: "b", after: nil, limit: 4, maxBytes: .max)
        #expect(forB.map(\.sequence) == [1, 2, 3, 4])
        try await settle(queue, "b", delivered: forB)
        #expect(queue.depth.events == 6)
        let rest = try await queue.peek(for: "b", after: nil, limit: 10, maxBytes: .max)
        #expect(rest.map(\.sequence) == Array(5...10))
        try await settle(queue, "b", delivered: rest)
        #expect(queue.depth.events == 0)
        #expect(queue.depth.totals.delivered == 10)
        #expect(queue.depth.destinations["b"] == DestinationDepth(pending: 0, delivered: 10))
    }

    @Test(arguments: Kind.allCases)
    func deadLettersAndFiltersAreDoneForOneDestinationOnly(_ kind: Kind) async throws {
        let queue = try makeQueue(kind)
        try await queue.register(destination: "a")
        try await queue.register(destination: "b")
        await fill(queue, 6)
        let head = try await queue.peek(for: "a", after: nil, limit: 6, maxBytes: .max)
        // a refuses event 3 for good and filters out event 5; the rest go again later.
        try await settle(queue, "a", deadLettered: [head[2]], filtered: [head[4]])
        #expect(queue.depth.destinations["a"] == DestinationDepth(pending: 4, deadLettered: 1, filtered: 1))
        #expect(try await queue.peek(for: "a", after: nil, limit: 6, maxBytes: .max).map(\.sequence) == [1, 2, 4, 6])
        #expect(try await queue.peek(for: "b", after: nil, limit: 6, maxBytes: .max).map(\.sequence) == [1, 2, 3, 4, 5, 6])

        try await settle(queue, "b", delivered: head)
        #expect(queue.depth.events == 4, "3 and 5 are done for both and left")
        #expect(queue.depth.totals.deadLettered == 1, "3 counts as dead-lettered: a refused it")
        #expect(queue.depth.totals.delivered == 1, "5 was filtered by a and delivered to b")
        let again = try await queue.peek(for: "a", after: nil, limit: 6, maxBytes: .max)
        try await settle(queue, "a", delivered: again)
        #expect(queue.depth.events == 0)
        #expect(queue.depth.totals.delivered == 5)
        #expect(queue.depth.totals.deadLettered == 1)
        let letters = try await queue.deadLetters(limit: 10)
        #expect(letters.map(\.event.sequence) == [3])
        #expect(letters.map(\.destination) == ["a"])
    }

    @Test(arguments: Kind.allCases)
    func aDestinationRegisteredLaterStartsWithEverythingQueued(_ kind: Kind) async throws {
        let queue = try makeQueue(kind)
        try await queue.register(destination: "a")
        await fill(queue, 5)
        let head = try await queue.peek(for: "a", after: nil, limit: 2, maxBytes: .max)
        try await settle(queue, "a", delivered: head)
        try await queue.register(destination: "late")
        #expect(queue.depth.destinations["late"]?.pending == 3)
        #expect(try await queue.peek(for: "late", after: nil, limit: 10, maxBytes: .max).map(\.sequence) == [3, 4, 5])
        await fill(queue, 2, from: 5)
        #expect(queue.depth.destinations["late"]?.pending == 5)
        #expect(queue.depth.destinations["a"]?.pending == 5)
    }

    @Test(arguments: Kind.allCases)
    func readingAheadSkipsTheBatchInFlight(_ kind: Kind) async throws {
        let queue = try makeQueue(kind)
        await fill(queue, 10)
        let first = try await queue.peek(for: "a", after: nil, limit: 4, maxBytes: .max)
        let ahead = try await queue.peek(for: "a", after: first.last?.sequence, limit: 4, maxBytes: .max)
        #expect(ahead.map(\.sequence) == [5, 6, 7, 8])
        try await settle(queue, "a", delivered: first, through: first.last?.sequence)
        let next = try await queue.peek(for: "a", after: ahead.last?.sequence, limit: 4, maxBytes: .max)
        #expect(next.map(\.sequence) == [9, 10])
        #expect(queue.depth.destinations["a"]?.pending == 6)
    }

    @Test(arguments: Kind.allCases)
    func overflowSkipsLeasedEventsAndChargesTheDestinationsThatLackedThem(_ kind: Kind) async throws {
        let queue = try makeQueue(kind, maxQueuedEvents: 10)
        try await queue.register(destination: "a")
        try await queue.register(destination: "b")
        await fill(queue, 10)
        // a has 1...4 in flight; b is done with 5 and 6.
        let leased = try await queue.peek(for: "a", after: nil, limit: 4, maxBytes: .max)
        let bHead = try await queue.peek(for: "b", after: nil, limit: 6, maxBytes: .max)
        try await settle(queue, "b", delivered: Array(bHead[4...5]), through: bHead.last?.sequence)
        queue.releaseLeases(for: "b")
        await fill(queue, 3, from: 10)
        // Three over: the oldest events nobody is sending are 5, 6 and 7.
        #expect(queue.depth.events == 10)
        #expect(queue.depth.totals.dropped == 3)
        #expect(queue.depth.destinations["a"] == DestinationDepth(pending: 10, dropped: 3))
        #expect(queue.depth.destinations["b"] == DestinationDepth(pending: 10, delivered: 2, dropped: 1))
        let forA = try await queue.peek(for: "a", after: leased.last?.sequence, limit: 20, maxBytes: .max)
        #expect(forA.map(\.sequence) == [8, 9, 10, 11, 12, 13])
    }

    @Test(arguments: Kind.allCases)
    func unregisteringADestinationReleasesWhatOnlyItLacked(_ kind: Kind) async throws {
        let queue = try makeQueue(kind)
        try await queue.register(destination: "a")
        try await queue.register(destination: "gone")
        await fill(queue, 6)
        let head = try await queue.peek(for: "a", after: nil, limit: 4, maxBytes: .max)
        try await settle(queue, "a", delivered: Array(head[0...2]), deadLettered: [head[3]])
        #expect(queue.depth.events == 6)
        try await queue.unregister(destination: "gone")
        #expect(queue.depth.events == 2, "a is done with 1...4; only 5 and 6 stay")
        #expect(queue.depth.totals.delivered == 3)
        #expect(queue.depth.totals.deadLettered == 1)
        #expect(queue.depth.destinations["gone"] == nil)
        #expect(try await queue.peek(for: "a", after: nil, limit: 10, maxBytes: .max).map(\.sequence) == [5, 6])
        try await queue.unregister(destination: "gone")  // idempotent
        try await queue.unregister(destination: "a")
        #expect(queue.depth.events == 2, "with no destination left, events wait for the next one")
    }

    @Test func progressSurvivesReopening() async throws {
        do {
            let queue = try makeQueue(.sqlite)
            try await queue.register(destination: "a")
            try await queue.register(destination: "b")
            await fill(queue, 8)
            let head = try await queue.peek(for: "a", after: nil, limit: 5, maxBytes: .max)
            try await settle(queue, "a", delivered: Array(head[0...2]), deadLettered: [head[4]])
        }
        let reopened = try SQLiteEventQueue(path: path)
        #expect(reopened.depth.destinations["a"] == DestinationDepth(pending: 4, delivered: 3, deadLettered: 1))
        #expect(reopened.depth.destinations["b"] == DestinationDepth(pending: 8))
        #expect(try await reopened.peek(for: "a", after: nil, limit: 10, maxBytes: .max).map(\.sequence) == [4, 6, 7, 8])
        #expect(try await reopened.peek(for: "b", after: nil, limit: 10, maxBytes: .max).count == 8)
    }

    @Test func aStoreFromBeforeDestinationsKeepsItsEventsAndDeadLetters() async throws {
        // A v2 store: the schema before destinations, with one queued event and one dead letter.
        do {
            let old = try StoreFile.open(path)
            try await old.write { db in
                try db.execute(sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1-queue'), ('v2-sync');
                    CREATE TABLE events (seq INTEGER PRIMARY KEY, message_id TEXT NOT NULL, name TEXT NOT NULL, payload BLOB NOT NULL, created_at INTEGER NOT NULL);
                    CREATE TABLE dead_letters (seq INTEGER PRIMARY KEY, message_id TEXT NOT NULL, name TEXT NOT NULL, payload BLOB NOT NULL,
                        reason TEXT NOT NULL, destination TEXT NOT NULL, status INTEGER, failed_at INTEGER NOT NULL);
                    CREATE TABLE batches (id INTEGER PRIMARY KEY, destination TEXT NOT NULL, started_at INTEGER NOT NULL, duration_us INTEGER NOT NULL,
                        events INTEGER NOT NULL, bytes INTEGER NOT NULL, attempt INTEGER NOT NULL, status INTEGER, outcome TEXT NOT NULL, error TEXT);
                    CREATE TABLE queue_state (id INTEGER PRIMARY KEY CHECK (id = 1), next_seq INTEGER NOT NULL, depth INTEGER NOT NULL,
                        bytes INTEGER NOT NULL, committed INTEGER NOT NULL, delivered INTEGER NOT NULL, dead_lettered INTEGER NOT NULL,
                        dropped INTEGER NOT NULL, updated_at INTEGER NOT NULL);
                    INSERT INTO queue_state VALUES (1, 3, 1, 2, 2, 0, 1, 0, 0);
                    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE sync_records (collection TEXT NOT NULL, id TEXT NOT NULL, body BLOB NOT NULL, updated_at INTEGER NOT NULL,
                        PRIMARY KEY (collection, id)) WITHOUT ROWID;
                    CREATE TABLE sync_links (collection TEXT NOT NULL, id TEXT NOT NULL, field TEXT NOT NULL, target_collection TEXT NOT NULL,
                        target_id TEXT NOT NULL, PRIMARY KEY (collection, id, field)) WITHOUT ROWID;
                    INSERT INTO events VALUES (2, 'm-2', 'kept', X'7B7D', 0);
                    INSERT INTO dead_letters VALUES (1, 'm-1', 'refused', X'7B7D', 'bad', 'default', 400, 5);
                    """)
            }
        }
        let queue = try SQLiteEventQueue(path: path)
        #expect(queue.depth.events == 1)
        #expect(try await queue.peek(limit: 10, maxBytes: .max).map(\.messageId) == ["m-2"])
        #expect(try await queue.deadLetters(limit: 10).map(\.event.messageId) == ["m-1"])
        #expect(queue.depth.destinations["default"]?.pending == 1)
    }
}

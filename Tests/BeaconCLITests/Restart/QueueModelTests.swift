@_spi(Testing) import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite queue against a model: the in-memory queue, driven with the same seeded
/// random sequences of appends, peeks (and reads ahead of a batch in flight), settles in
/// and out of order (delivered, filtered, dead-lettered, across destinations), lease
/// releases, dead-letter retries and purges, pauses recorded and lifted, a destination
/// unregistered and registered again, the overflow bound, reopening the store, and a
/// `beacon track` on the store killed with SIGKILL mid-write (a real process: what it
/// committed is a prefix of what it was given, everything seen stored before the kill
/// among it, and the model takes exactly that); tiny segments make the log rotate and drop segments all
/// along. After every step: depth, bytes, the totals, each destination's counters, the
/// dead letters, the pauses, the writer's bookkeeping in memory against its tables, and
/// the segments on disk (each one but the tail still holds a queued event).
///
/// Steps per seed: `BEACON_MODEL_STEPS` (default 500; the README gives a longer run).
/// Longer drains killed mid-way are `SegmentedLogCrashTests`.
@Suite("Queue against its model", .timeLimit(.minutes(10)))
struct QueueModelTests {
    /// Removed, with the store in it, when the test ends.
    let store: TemporaryStore

    init() throws {
        store = try TemporaryStore("model")
    }

    var path: String { store.path }

    /// One step, chosen by the seed.
    enum Step: CaseIterable {
        case append, peekAndSettle, readAheadAndSettleFirst, release, retryLetter, purgeLetter, pause, reopen, killedWriter
        case unregister
    }

    static let destinations = ["a", "b", "c"]
    static let maxQueued = 60
    static var steps: Int {
        ProcessInfo.processInfo.environment["BEACON_MODEL_STEPS"].flatMap { Int($0) }.map { min(max($0, 1), 10_000_000) } ?? 500
    }

    func openSQLite(segmentEvents: Int) throws -> SQLiteEventQueue {
        var configuration = SQLiteEventQueue.Configuration()
        configuration.maxQueuedEvents = Self.maxQueued
        configuration.segmentEvents = segmentEvents
        return try SQLiteEventQueue(path: path, configuration: configuration)
    }

    /// Seeds 1 to 6, each on a store of its own, three at a time: a seed's steps wait on
    /// its group commits, not on the CPU, so they overlap without changing what each checks.
    /// `BEACON_MODEL_SEED=N` runs seed N alone (to tell which seed a failure came from).
    @Test func sqliteAgreesWithTheModel() async throws {
        let only = ProcessInfo.processInfo.environment["BEACON_MODEL_SEED"].flatMap { UInt64($0) }
        let seeds: [UInt64] = only.map { [$0] } ?? [1, 2, 3, 4, 5, 6]
        let runs = try seeds.map { seed in (seed, try QueueModelTests()) }
        _ = try await concurrently(runs, width: 3) { seed, run in
            try await run.agreesWithTheModel(seed: seed)
        }
    }

    /// One seed's random steps, on this test's store.
    func agreesWithTheModel(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let segmentEvents = Int.random(in: 2...9, using: &random)
        var sqlite = try openSQLite(segmentEvents: segmentEvents)
        let model = InMemoryEventQueue(maxQueuedEvents: Self.maxQueued)
        var registered = Set(Self.destinations)
        for name in Self.destinations {
            try await sqlite.register(destination: name)
            try await model.register(destination: name)
        }
        var appended = 0
        var killed = 0
        var seen = Set<Step>()
        for step in 0..<Self.steps {
            let choice = Int.random(in: 0..<100, using: &random)
            let kind: Step = choice < 36 ? .append : choice < 65 ? .peekAndSettle : choice < 73 ? .readAheadAndSettleFirst
                : choice < 78 ? .release : choice < 85 ? .retryLetter : choice < 89 ? .purgeLetter : choice < 93 ? .pause
                : choice < 96 ? .reopen : choice < 98 ? .killedWriter : .unregister
            seen.insert(kind)
            switch kind {
            case .append:
                let count = Int.random(in: 1...8, using: &random)
                for _ in 0..<count {
                    let event = Event(name: "e\(appended)", properties: ["n": .int(appended), "pad": .string(String(repeating: "x", count: appended % 17))])
                    appended += 1
                    for queue in [sqlite, model] as [any EventQueue] {
                        _ = queue.append(PendingEvent(messageId: event.messageId, name: event.name ?? "", payload: event.jsonBytes, createdAt: .now()))
                    }
                }
                await sqlite.waitForPendingWrites()
                await model.waitForPendingWrites()
            case .peekAndSettle, .readAheadAndSettleFirst:
                guard let destination = registered.sorted().randomElement(using: &random) else { break }
                let limit = Int.random(in: 1...8, using: &random)
                let first = try await Self.peekBoth(sqlite, model, destination, after: nil, limit: limit, step: step)
                guard let first else { break }
                if kind == .readAheadAndSettleFirst, let last = first.last?.sequence,
                    let ahead = try await Self.peekBoth(sqlite, model, destination, after: last, limit: limit, step: step)
                {
                    // The batch read ahead lands first: its destination settles out of order.
                    try await Self.settleBoth(sqlite, model, destination, ahead, step: step, random: &random)
                }
                try await Self.settleBoth(sqlite, model, destination, first, step: step, random: &random)
            case .release:
                for name in Self.destinations {
                    sqlite.releaseLeases(for: name)
                    model.releaseLeases(for: name)
                }
            case .retryLetter, .purgeLetter:
                let letters = try await model.deadLetters(limit: 1_000).filter { registered.contains($0.destination) }
                guard let pick = letters.randomElement(using: &random) else { break }
                let inSQLite = try await sqlite.deadLetters(limit: 1_000).first { $0.event.messageId == pick.event.messageId && $0.destination == pick.destination }
                let twin = try #require(inSQLite, "step \(step): the store has the model's letter \(pick.event.messageId)")
                if kind == .retryLetter {
                    #expect(try await sqlite.retryDeadLetters(.ids([twin.id])).done == [twin.id])
                    #expect(try await model.retryDeadLetters(.ids([pick.id])).done == [pick.id])
                } else {
                    #expect(try await sqlite.purgeDeadLetters(.ids([twin.id])).done == [twin.id])
                    #expect(try await model.purgeDeadLetters(.ids([pick.id])).done == [pick.id])
                }
            case .pause:
                let name = Self.destinations.randomElement(using: &random) ?? "a"
                let paused = Bool.random(using: &random)
                try await sqlite.recordPause(paused, destination: name)
                try await model.recordPause(paused, destination: name)
            case .reopen:
                // What a restart leaves: leases are gone, the rest is in the file.
                _ = await sqlite.close()
                sqlite = try openSQLite(segmentEvents: segmentEvents)
                for name in Self.destinations { model.releaseLeases(for: name) }
            case .killedWriter:
                // Another process writes the store and dies mid-way: this one reopens it
                // (its bookkeeping read again) and the model takes what the other committed.
                _ = await sqlite.close()
                for name in Self.destinations { model.releaseLeases(for: name) }
                let given = (0..<Int.random(in: 1...6, using: &random)).map { "k\(step)-\($0)" }
                let waitFor = Int.random(in: 0...given.count, using: &random)
                let before = try await Self.lastSequence(path)
                let seen = try await Self.trackAndKill(db: path, names: given, afterStored: waitFor)
                sqlite = try openSQLite(segmentEvents: segmentEvents)
                let landed = try await Self.events(path, after: before)
                let at = "step \(step): a track killed once \(seen) of its \(given.count) events were stored"
                #expect(landed.map(\.name) == Array(given.prefix(landed.count)), "\(at): it committed a prefix of its events, in order")
                #expect(landed.count >= seen, "\(at): what was seen stored stays stored")
                killed += 1
                for event in landed {
                    _ = model.append(event)
                    await model.waitForPendingWrites()
                }
                appended += landed.count
            case .unregister:
                // Destination c leaves (what only it lacked leaves the queue), or comes back
                // (starting with everything queued).
                if registered.remove("c") != nil {
                    try await sqlite.unregister(destination: "c")
                    try await model.unregister(destination: "c")
                } else {
                    registered.insert("c")
                    try await sqlite.register(destination: "c")
                    try await model.register(destination: "c")
                }
            }
            try await Self.compare(sqlite, model, registered: registered, step: step, kind: kind)
            try await Self.checkSegments(sqlite, step: step)
        }
        #expect(appended > Self.steps / 2, "the sequence appended \(appended) events")
        if Self.steps >= 500 { #expect(seen == Set(Step.allCases), "every kind of step ran") }
        #expect(sqlite.depth.totals.dropped > 0, "the overflow bound was reached")
        if Self.steps >= 500 { #expect(killed > 0, "a writer was killed") }
    }

    /// Peeks both queues and checks they return the same events.
    static func peekBoth(
        _ sqlite: SQLiteEventQueue, _ model: InMemoryEventQueue, _ destination: String, after: Int64?, limit: Int, step: Int
    ) async throws -> [QueuedEvent]? {
        let fromSQLite = try await sqlite.peek(for: destination, after: after, limit: limit, maxBytes: .max)
        let fromModel = try await model.peek(for: destination, after: after, limit: limit, maxBytes: .max)
        #expect(fromSQLite.map(\.messageId) == fromModel.map(\.messageId), "step \(step): \(destination)'s head after \(String(describing: after))")
        #expect(fromSQLite.map(\.payload) == fromModel.map(\.payload), "step \(step): payloads")
        guard !fromSQLite.isEmpty, fromSQLite.map(\.messageId) == fromModel.map(\.messageId) else { return nil }
        return fromSQLite
    }

    /// Settles a batch in both queues, each event delivered, filtered or refused for good
    /// by the same coin.
    static func settleBoth(
        _ sqlite: SQLiteEventQueue, _ model: InMemoryEventQueue, _ destination: String, _ events: [QueuedEvent], step: Int,
        random: inout SeededGenerator
    ) async throws {
        let fates = events.indices.map { _ in Int.random(in: 0..<10, using: &random) }
        for queue in [sqlite, model] as [any EventQueue] {
            // The model numbers its events as the store does: the same sequence numbers.
            let record = BatchRecord(
                id: queue.makeBatchID(), destination: destination, startedAt: .now(), duration: .zero, events: events.count,
                bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
            let letters = zip(events, fates).filter { $0.1 == 0 }.map {
                DeadLetter(event: $0.0, reason: "refused at step \(step)", destination: destination, status: 400, failedAt: .now())
            }
            try await queue.settle(BatchSettlement(
                record: record, delivered: zip(events, fates).filter { $0.1 > 1 }.map(\.0.sequence), deadLetters: letters,
                filtered: zip(events, fates).filter { $0.1 == 1 }.map(\.0.sequence), through: events.last?.sequence))
        }
    }

    /// Depth, bytes, totals, each destination's pending count, and the dead letters with
    /// their attempts.
    static func compare(_ sqlite: SQLiteEventQueue, _ model: InMemoryEventQueue, registered: Set<String>, step: Int, kind: Step) async throws {
        let (stored, modelled) = (sqlite.depth, model.depth)
        let at = "step \(step) (\(kind))"
        #expect(stored.events == modelled.events, "\(at): depth")
        #expect(stored.bytes == modelled.bytes, "\(at): bytes")
        #expect(stored.totals.committed == modelled.totals.committed, "\(at): committed")
        #expect(stored.totals.delivered == modelled.totals.delivered, "\(at): delivered")
        #expect(stored.totals.deadLettered == modelled.totals.deadLettered, "\(at): dead-lettered")
        #expect(stored.totals.dropped == modelled.totals.dropped, "\(at): dropped")
        for name in destinations {
            #expect(stored.pending(for: name) == modelled.pending(for: name), "\(at): \(name)'s pending")
            if registered.contains(name) {
                #expect(stored.destinations[name] == modelled.destinations[name], "\(at): \(name)'s counters")
            }
        }
        let letters = { (queue: any EventQueue) async throws -> [String] in
            try await queue.deadLetters(limit: 10_000).map { "\($0.destination) \($0.event.messageId) ×\($0.attemptCount)" }.sorted()
        }
        #expect(try await letters(sqlite) == (try await letters(model)), "\(at): dead letters")
        #expect(try await sqlite.deadLetterCount() == (try await model.deadLetterCount()), "\(at): dead letters held")
        #expect(try await sqlite.pausedDestinations() == (try await model.pausedDestinations()), "\(at): pauses")
        // The writer's bookkeeping in memory is the store's, table for table.
        #expect(try await sqlite.keptBookkeepingMatchesStore() != false, "\(at): the kept bookkeeping differs from the store's")
    }

    /// On disk: the `events` view holds as many rows as the depth, and every segment but
    /// the tail still holds an event above the floor (the others were dropped).
    static func checkSegments(_ sqlite: SQLiteEventQueue, step: Int) async throws {
        let (rows, floor, firsts) = try await StoreFile.open(sqlite.location).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? -1,
                try Int64.fetchOne(db, sql: "SELECT floor_seq FROM queue_state") ?? -1,
                try Int64.fetchAll(db, sql: "SELECT first_seq FROM segments ORDER BY first_seq")
            )
        }
        #expect(rows == sqlite.depth.events, "step \(step): rows in the events view")
        #expect(!firsts.isEmpty, "step \(step): a tail segment")
        for (first, next) in zip(firsts, firsts.dropFirst()) {
            #expect(next - 1 > floor, "step \(step): segment \(first) lies below the floor \(floor) and was not dropped")
        }
    }

    /// The highest sequence number the store holds (0 when it holds none).
    static func lastSequence(_ path: String) async throws -> Int64 {
        try await StoreFile.open(path).read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM events") ?? 0 }
    }

    /// The events stored above sequence `after`, in order, as the queue was given them.
    static func events(_ path: String, after: Int64) async throws -> [PendingEvent] {
        try await StoreFile.open(path).read { db in
            try Row.fetchAll(db, sql: "SELECT message_id, name, payload, created_at FROM events WHERE seq > ? ORDER BY seq", arguments: [after])
                .map { row in
                    let payload: Data = row[2]
                    return PendingEvent(
                        messageId: row[0], name: row[1], payload: Array(payload), createdAt: Timestamp(millisecondsSince1970: row[3]))
                }
        }
    }

    /// Runs `beacon track --stdin` on the store (with the model's bound), gives it one
    /// event per name, and kills it with SIGKILL as soon as `target` of them are in the
    /// store (at once for 0: maybe before it opened the store) while the rest may be under
    /// way. Returns how many were in the store when the kill was sent.
    static func trackAndKill(db: String, names: [String], afterStored target: Int) async throws -> Int {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: BeaconProcess.path)
        process.arguments = ["track", "--db", db, "--stdin", "--max-queue-events", "\(maxQueued)"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let lines = names.map { #"{"event": "\#($0)", "properties": {"model": true}, "userId": "model"}"# + "\n" }.joined()
        let bytes = Array(lines.utf8)
        // Written whole (a few hundred bytes fit a pipe), stdin kept open: the child waits for more.
        let written = bytes.withUnsafeBytes { write(input.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count) }
        var stored = 0
        if written == bytes.count, target > 0 {
            let prefix = names[0].prefix { $0 != "-" }
            _ = try await eventually(within: .seconds(20), every: .milliseconds(2)) {
                stored = try await StoreFile.open(db).read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE name LIKE ?", arguments: ["\(prefix)-%"]) ?? 0
                }
                return stored >= target
            }
        }
        kill(process.processIdentifier, SIGKILL)
        try? input.fileHandleForWriting.close()
        try await offThePool { process.waitUntilExit() }
        return stored
    }
}

@_spi(Benchmarks) import Beacon
import BeaconTesting
import Foundation
import GRDB
import Testing

/// The segmented log under `kill -9`: real `beacon` processes killed at random moments
/// while they drain (dropping segments as they go) or migrate a store from before
/// segments; every store they leave opens, its counters agree with its rows, and no
/// event is lost.
@Suite("Segmented log under kill -9", .timeLimit(.minutes(6)))
struct SegmentedLogCrashTests {
    /// `beacon flush` of 50,000 events (four segments) killed at random moments within
    /// the time an unkilled flush of the same backlog takes here, eight times, then run to
    /// the end: the collector holds every event tracked, once; the store is empty, down to
    /// its tail segment.
    @Test func aDrainKilledAtRandomMomentsLosesNothing() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = directory + "/q.sqlite"
        let collectorDB = directory + "/collector.sqlite"
        let collector = try RunningCollector(arguments: ["--db", collectorDB], directory: directory)
        defer { collector.stop() }
        let endpoint = try await collector.address()
        let track = try await BeaconProcess.run(["track", "--db", db, "--count", "50000", "--print-ids"])
        #expect(track.status == 0, "\(track.stderr)")
        let ids = track.stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 50_000)
        #expect(try Self.segmentCount(db) >= 4, "the backlog spans several segments")

        // How long an unkilled flush of a copy takes here, process start included (to a
        // collector of its own): the kills land within it, however fast this machine is.
        let copy = directory + "/timed.sqlite"
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: db + suffix) {
            try FileManager.default.copyItem(atPath: db + suffix, toPath: copy + suffix)
        }
        let timing = try RunningCollector(arguments: ["--db", directory + "/timing.sqlite"], directory: directory)
        defer { timing.stop() }
        let timingEndpoint = try await timing.address()
        let start = ContinuousClock.now
        let unkilled = try await BeaconProcess.run(["flush", "--db", copy, "--endpoint", timingEndpoint, "--batch-size", "500"])
        let took = start.duration(to: .now)
        #expect(unkilled.status == 0, "\(unkilled.stderr)")
        let milliseconds = took.components.seconds * 1_000 + took.components.attoseconds / 1_000_000_000_000_000

        var kills = 0
        for round in 0..<8 {
            // Each killed flush leaves less to drain: the window shrinks with what is left.
            let left = try Self.depth(db)
            let window: Int64 = milliseconds * 9 / 10 * Int64(left) / Int64(max(1, ids.count))
            let delay = Int.random(in: 0...Int(clamping: max(1, window)))
            let reason = try await offThePool { try Self.flushAndKill(db: db, endpoint: endpoint, afterMilliseconds: delay) }
            if reason == .uncaughtSignal { kills += 1 }
            try Self.expectConsistent(db, "round \(round), killed after \(delay) ms")
        }
        let flush = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", endpoint, "--batch-size", "500"])
        #expect(flush.status == 0, "\(flush.stderr)")
        let delivered = try await StoreFile.open(collectorDB).read { db in
            try String.fetchAll(db, sql: "SELECT message_id FROM collector_events")
        }
        #expect(delivered.count == ids.count, "the collector stored each event once")
        #expect(Set(delivered) == Set(ids), "every event tracked reached the collector")
        try Self.expectConsistent(db, "after the last drain")
        #expect(try Self.segmentCount(db) == 1, "every drained segment was dropped")
        #expect(kills >= 4, "\(kills) of 8 drains were killed mid-way")
    }

    /// A store written before segments (schema v6: one events table with gaps, two
    /// destinations, one with events settled out of order, a dead letter), migrated by a
    /// `beacon track` killed at random moments: each store left opens, at v6 or v7, with
    /// every event and each destination's pending events as they were.
    @Test func aMigrationKilledAtAnyMomentLeavesAStoreThatOpensWithEverything() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = directory + "/v6.sqlite"
        let expected = try Self.writeVersion6Store(original)

        // How long an unkilled migration takes here, process start included.
        let timed = directory + "/timed.sqlite"
        try FileManager.default.copyItem(atPath: original, toPath: timed)
        let start = ContinuousClock.now
        let unkilled = try await BeaconProcess.run(["track", "--db", timed, "--count", "1", "--name", "after migration"])
        let took = start.duration(to: .now)
        #expect(unkilled.status == 0, "\(unkilled.stderr)")
        try await Self.expectMigrated(timed, expected, plusOne: true, "unkilled")

        var before = 0
        for trial in 0..<10 {
            let path = directory + "/trial-\(trial).sqlite"
            try FileManager.default.copyItem(atPath: original, toPath: path)
            let milliseconds = took.components.seconds * 1_000 + took.components.attoseconds / 1_000_000_000_000_000
            let delay = trial == 0 ? 0 : Int.random(in: 0...Int(clamping: max(1, milliseconds * 3 / 2)))
            _ = try await offThePool { try Self.trackAndKill(db: path, afterMilliseconds: delay) }
            let migrations = try await StoreFile.open(path).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
            if !migrations.contains("v7-segmented-log") { before += 1 }
            let committed = try await StoreFile.open(path).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM events WHERE name = 'after migration'") ?? 0
            }
            try await Self.expectMigrated(path, expected, plusOne: committed == 1, "trial \(trial), killed after \(delay) ms")
        }
        #expect(before >= 1, "at least one kill landed before the migration committed")
    }

    // MARK: Helpers

    /// What the v6 store holds: every message id queued, and each destination's pending ids.
    struct Version6: Sendable {
        var ids: [String]
        var pending: [String: [String]]
    }

    /// Writes a v6 store of 120,000 events with gaps (every 1,000th removed, the last 50
    /// gone), destination `a` done through 5,000 and `b` through 0 with 10...20, 25 (its dead
    /// letter) and 30 done out of order.
    static func writeVersion6Store(_ path: String) throws -> Version6 {
        let queue = try StoreFile.open(path)
        try StoreSchema.migrator().migrate(queue, upTo: "v6-dead-letter-attempts")
        return try queue.write { db in
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120000)
                INSERT INTO events (seq, message_id, name, payload, created_at)
                    SELECT i, 'm-' || i, 'Old Event', CAST('{"n":' || i || '}' AS BLOB), 1700000000000 + i FROM n
                    WHERE i % 1000 != 0 AND i <= 119950;
                UPDATE queue_state SET next_seq = 120001,
                    depth = (SELECT count(*) FROM events), bytes = (SELECT sum(length(payload)) FROM events),
                    committed = 120000 WHERE id = 1;
                INSERT INTO destinations VALUES ('a', 5000, 0, 0, 0, 0, 0, 0), ('b', 0, 0, 0, 0, 0, 0, 0);
                WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
                INSERT INTO destination_done (destination, seq) SELECT 'b', i FROM n;
                INSERT INTO destination_done (destination, seq) VALUES ('b', 25), ('b', 30);
                INSERT INTO dead_letters (seq, destination, message_id, name, payload, reason, status, failed_at)
                    VALUES (25, 'b', 'm-25', 'Old Event', X'7B7D', 'refused', 400, 1700000000000);
                INSERT INTO dead_letter_attempts VALUES (1, 1, 'refused', 400, 1700000000000);
                """)
            let rows = try Row.fetchAll(db, sql: "SELECT seq, message_id FROM events ORDER BY seq")
            let ids = rows.map { $0[1] as String }
            let pendingA = rows.filter { ($0[0] as Int64) > 5000 }.map { $0[1] as String }
            let pendingB = rows.filter { row in
                let seq: Int64 = row[0]
                return !(10...20).contains(seq) && seq != 25 && seq != 30
            }.map { $0[1] as String }
            try db.execute(
                sql: "UPDATE destinations SET pending = ? WHERE name = 'a'; UPDATE destinations SET pending = ? WHERE name = 'b'",
                arguments: [pendingA.count, pendingB.count])
            return Version6(ids: ids, pending: ["a": pendingA, "b": pendingB])
        }
    }

    /// Opens `path` with the queue (migrating it if the kill came first) and checks it
    /// holds what the v6 store held, plus the tracked event when it was committed.
    static func expectMigrated(_ path: String, _ expected: Version6, plusOne: Bool, _ context: String) async throws {
        let queue = try SQLiteEventQueue(path: path)
        let extra = plusOne ? 1 : 0
        #expect(queue.depth.events == expected.ids.count + extra, "\(context): depth")
        for (name, ids) in expected.pending {
            #expect(queue.depth.pending(for: name) == ids.count + extra, "\(context): \(name)'s pending")
            let head = try await queue.peek(for: name, after: nil, limit: 40, maxBytes: .max).map(\.messageId)
            #expect(head == Array(ids.prefix(40)), "\(context): \(name)'s head")
        }
        let queued = try await StoreFile.open(path).read { db in
            try String.fetchAll(db, sql: "SELECT message_id FROM events WHERE name = 'Old Event' ORDER BY seq")
        }
        #expect(queued == expected.ids, "\(context): every event, in order")
        #expect(try await queue.deadLetterCount() == 1, "\(context): the dead letter")
        _ = await queue.close()
    }

    /// The counters in `queue_state` and `destinations` agree with the rows, and no
    /// segment below the floor is left.
    static func expectConsistent(_ path: String, _ context: String) throws {
        try StoreFile.open(path).read { db in
            let depth = try Int.fetchOne(db, sql: "SELECT depth FROM queue_state") ?? -1
            #expect(depth == (try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? -2), "\(context): depth")
            for row in try Row.fetchAll(db, sql: "SELECT name, cursor, pending FROM destinations") {
                let (name, cursor, pending): (String, Int64, Int) = (row[0], row[1], row[2])
                let counted = try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM events WHERE seq > ? AND NOT EXISTS (
                            SELECT 1 FROM destination_done WHERE destination = ? AND events.seq BETWEEN first_seq AND last_seq)
                        """,
                    arguments: [cursor, name]) ?? -1
                #expect(pending == counted, "\(context): \(name)'s pending")
            }
            let floor = try Int64.fetchOne(db, sql: "SELECT floor_seq FROM queue_state") ?? -1
            let firsts = try Int64.fetchAll(db, sql: "SELECT first_seq FROM segments ORDER BY first_seq")
            for next in firsts.dropFirst() { #expect(next - 1 > floor, "\(context): a segment below the floor \(floor)") }
        }
    }

    static func depth(_ path: String) throws -> Int {
        try StoreFile.open(path).read { db in try Int.fetchOne(db, sql: "SELECT depth FROM queue_state") ?? 0 }
    }

    static func segmentCount(_ path: String) throws -> Int {
        try StoreFile.open(path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM segments") ?? 0 }
    }

    /// Runs `arguments` and kills it with SIGKILL after `milliseconds` (if it still runs):
    /// the random moment is the point of the test, not a wait for something to happen.
    /// Blocking: run it off the cooperative pool.
    static func runAndKill(_ arguments: [String], afterMilliseconds milliseconds: Int) throws -> Process.TerminationReason {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: BeaconProcess.path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(UInt32(milliseconds) * 1_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason
    }

    static func flushAndKill(db: String, endpoint: String, afterMilliseconds milliseconds: Int) throws -> Process.TerminationReason {
        try runAndKill(["flush", "--db", db, "--endpoint", endpoint, "--batch-size", "500"], afterMilliseconds: milliseconds)
    }

    static func trackAndKill(db: String, afterMilliseconds milliseconds: Int) throws -> Process.TerminationReason {
        try runAndKill(["track", "--db", db, "--count", "1", "--name", "after migration"], afterMilliseconds: milliseconds)
    }
}

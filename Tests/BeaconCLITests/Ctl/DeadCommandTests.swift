@_spi(Benchmarks) import Beacon
import BeaconWire
import BeaconTesting
import Foundation
import GRDB
import Testing

/// `beacon dead` and `beacon ctl pause/resume`, as child processes: on a store no engine
/// serves, and through an engine serving its control channel in this process.
@Suite("beacon dead and ctl pause", .timeLimit(.minutes(4)))
struct DeadCommandTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    static func run(_ arguments: [String]) async throws -> BeaconProcess.Result {
        try await BeaconProcess.run(arguments)
    }

    /// Acceptance 2 of issue 14, with no engine running: events a collector refuses land
    /// in the dead letters with their reason; once the cause is lifted, `dead retry --all`
    /// delivers them exactly once, and `purge` removes them, counted.
    @Test func refusedEventsAreRetriedOnceAndPurgedCounted() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = directory + "/q.sqlite"
        let strict = try RunningCollector(arguments: ["--max-event-bytes", "400"], directory: directory)
        let endpoint = try await strict.address()
        let blob = String(repeating: "x", count: 600)
        #expect(try await Self.run(["track", "--db", db, "--name", "Large", "--prop", "blob=\(blob)", "--count", "4"]).status == 0)
        #expect(try await Self.run(["track", "--db", db, "--name", "Small", "--count", "2"]).status == 0)
        let refused = try await Self.run(["flush", "--db", db, "--endpoint", endpoint])
        #expect(refused.status == 0, "\(refused.stderr)")
        #expect(try await strict.stats()["stored"] as? Int == 2)
        strict.stop()

        let listed = try await Self.run(["dead", "--db", db, "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let letters = try #require(try Self.json(listed.stdout)["deadLetters"] as? [[String: Any]])
        #expect(letters.count == 4)
        #expect(letters.allSatisfy { ($0["status"] as? Int) == 400 && ($0["name"] as? String) == "Large" })
        #expect(letters.allSatisfy { ($0["reason"] as? String)?.contains("400") == true || ($0["reason"] as? String)?.contains("bytes") == true },
                "the collector's reason: \(letters.map { $0["reason"] ?? "" })")
        let ids = letters.compactMap { $0["id"] as? Int }
        let text = try await Self.run(["dead", "--db", db, "list"])
        #expect(text.stdout.contains("\(ids[0])") && text.stdout.contains("4 dead letters"), "\(text.stdout)")
        let shown = try await Self.run(["dead", "--db", db, "show", "\(ids[0])"])
        #expect(try Self.json(shown.stdout)["event"] as? [String: Any] != nil, "\(shown.stdout)")

        // One purged by id; purging it again is refused and changes nothing.
        let purged = try await Self.run(["dead", "--db", db, "purge", "\(ids[0])"])
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(purged.stdout == "purged 1 dead letter\n")
        let again = try await Self.run(["dead", "--db", db, "purge", "\(ids[0])", "\(ids[1])"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("no dead letter with id \(ids[0])") && again.stderr.contains("nothing was purged"), "\(again.stderr)")

        let exported = directory + "/dead.ndjson"
        let export = try await Self.run(["dead", "--db", db, "export", "--out", exported])
        #expect(export.status == 0 && export.stdout == "exported 3 dead letters to \(exported)\n", "\(export.stdout) \(export.stderr)")
        let lines = try String(contentsOfFile: exported, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(try lines.allSatisfy { (try Self.json(String($0))["event"] as? [String: Any])?["messageId"] != nil })

        // The cause lifted: a collector that takes large events.
        try FileManager.default.createDirectory(atPath: directory + "/roomy", withIntermediateDirectories: true)
        let roomy = try RunningCollector(arguments: [], directory: directory + "/roomy")
        defer { roomy.stop() }
        let roomyEndpoint = try await roomy.address()
        let retried = try await Self.run(["dead", "--db", db, "retry", "--all"])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.hasPrefix("retried 3 dead letters"), "\(retried.stdout)")
        let twice = try await Self.run(["dead", "--db", db, "retry", "--all"])
        #expect(twice.stdout.hasPrefix("retried 0 dead letters"), "\(twice.stdout)")
        let once = try await Self.run(["dead", "--db", db, "retry", "\(ids[1])"])
        #expect(once.status == 1 && once.stderr.contains("no dead letter with id \(ids[1])"), "\(once.stderr)")
        let flush = try await Self.run(["flush", "--db", db, "--endpoint", roomyEndpoint])
        #expect(flush.status == 0, "\(flush.stderr)")
        let stats = try await roomy.stats()
        #expect(stats["stored"] as? Int == 3)
        #expect(stats["received"] as? Int == 3, "each retried event went out once: \(stats)")
        #expect(stats["duplicates"] as? Int == 0)

        let status = try await Self.run(["status", "--db", db, "--json"])
        let totals = try Self.json(status.stdout)
        #expect(totals["deadLetters"] as? Int == 0)
        #expect(totals["deadLettersPurged"] as? Int == 1, "\(status.stdout)")
        #expect(totals["deadLettersRetried"] as? Int == 3)
        #expect(totals["depth"] as? Int == 0)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Reading dead letters opens the store read-only: a store an older Beacon wrote (here:
    /// without the `v5-pauses` migration) is listed, shown and exported, and left as it was,
    /// so that Beacon can still open it.
    @Test func readingDeadLettersLeavesAnOlderStoreUnmigrated() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = directory + "/q.sqlite"
        // A store as Beacon wrote it at schema v4: one event, one dead letter.
        try StoreSchema.migrator().migrate(try StoreFile.open(db), upTo: "v4-operations")
        let migrations = { () async throws -> [String] in
            try await StoreFile.open(db).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            }
        }
        try await StoreFile.open(db).write { db in
            try db.execute(sql: """
                INSERT INTO dead_letters (seq, destination, message_id, name, payload, reason, status, failed_at)
                VALUES (1, 'default', 'm-1', 'Old', CAST('{"event":"Old"}' AS BLOB), 'HTTP 400: refused', 400, 1764000000000);
                INSERT INTO events (seq, message_id, name, payload, created_at) VALUES (2, 'm-2', 'Old', X'7B7D', 1764000000000);
                UPDATE queue_state SET next_seq = 3, depth = 1, bytes = 2, committed = 2 WHERE id = 1;
                """)
        }
        let before = try await migrations()
        #expect(before.last == "v4-operations")

        let listed = try await Self.run(["dead", "--db", db, "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let letters = try #require(try Self.json(listed.stdout)["deadLetters"] as? [[String: Any]])
        #expect(letters.count == 1 && letters.first?["reason"] as? String == "HTTP 400: refused", "\(listed.stdout)")
        #expect(try Self.json(listed.stdout)["total"] as? Int == 1)
        let id = try #require(letters.first?["id"] as? Int)
        let shown = try await Self.run(["dead", "--db", db, "show", "\(id)"])
        #expect(shown.status == 0 && shown.stdout.contains("m-1"), "\(shown.stdout) \(shown.stderr)")
        #expect(letters.first?["attempts"] as? Int == 1, "a letter from before the attempts table counts one: \(listed.stdout)")
        let history = try #require(try Self.json(shown.stdout)["history"] as? [[String: Any]], "\(shown.stdout)")
        #expect(history.count == 1 && history.first?["reason"] as? String == "HTTP 400: refused", "\(shown.stdout)")
        let missing = try await Self.run(["dead", "--db", db, "show", "\(id + 1)"])
        #expect(missing.status == 1 && missing.stderr.contains("no dead letter with id"), "\(missing.stderr)")
        let exported = try await Self.run(["dead", "--db", db, "export"])
        #expect(exported.status == 0 && exported.stdout.split(separator: "\n").count == 1, "\(exported.stdout)")

        #expect(try await migrations() == before, "a read did not migrate the store")
        let pauses = try await StoreFile.open(db).read { db in try db.tableExists("destination_pauses") }
        #expect(!pauses)
    }

    @Test("bad usage exits 2 with one line", arguments: [
        ["dead", "--db", "/tmp/x.sqlite", "retry"], ["dead", "--db", "/tmp/x.sqlite", "retry", "1", "--all"],
        ["dead", "--db", "/tmp/x.sqlite", "retry", "0"], ["dead", "--db", "/tmp/x.sqlite", "purge", "-3"],
        ["dead", "--db", "/tmp/x.sqlite", "purge", "9223372036854775807"], ["dead", "--db", "/tmp/x.sqlite", "show", "abc"],
        ["dead", "--db", "/tmp/x.sqlite", "show", "1e300"], ["dead", "--db", "/tmp/x.sqlite", "list", "--limit", "0"],
        ["dead", "--db", "/tmp/x.sqlite", "frobnicate"], ["ctl", "--db", "/tmp/x.sqlite", "pause", ""],
        ["ctl", "--db", "/tmp/x.sqlite", "resume", "a\u{1}b"], ["ctl", "--db", "/tmp/x.sqlite", "pause", "a", "b"],
        ["dead", "--db", "/tmp/nowhere-\(UUID().uuidString).sqlite", "list"],
    ])
    func badUsage(arguments: [String]) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("each dead subcommand's help says what it does", arguments: ["list", "show", "retry", "purge", "export"])
    func help(subcommand: String) async throws {
        let result = try await Self.run(["dead", subcommand, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("OVERVIEW:") && result.stdout.count > 100, "\(result.stdout)")
    }

    /// Through a serving engine: ctl pause and resume, and every dead verb.
    @Test func throughAServingEngine() async throws {
        let served = try await CtlCommandTests.Served.start(sender: RecordingSender { batch, _ in
            let refused = batch.events.enumerated().filter { $0.element.name == "Bad" }.map {
                EventRejection(index: $0.offset, messageId: $0.element.messageId, reason: "no Bad events here")
            }
            return refused.isEmpty ? SendResult(.delivered, status: 200) : SendResult(.rejected(refused), status: 400)
        })
        let db = served.store
        let pause = try await Self.run(["ctl", "--db", db, "pause", "default"])
        #expect(pause.status == 0 && pause.stdout == "paused: default\n", "\(pause.stdout) \(pause.stderr)")
        let unknown = try await Self.run(["ctl", "--db", db, "pause", "backup"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no destination named \"backup\""), "\(unknown.stderr)")
        for _ in 0..<2 { try await served.engine.tracker.track("Bad", anonymousId: "x").committed() }
        try await served.engine.tracker.track("Good", anonymousId: "x").committed()
        #expect(try await Self.run(["ctl", "--db", db, "flush"]).status == 0)
        let status = try await Self.run(["ctl", "--db", db, "status", "--json"])
        let destination = try #require((try Self.json(status.stdout)["destinations"] as? [[String: Any]])?.first)
        #expect(destination["paused"] as? Bool == true && destination["pausedBy"] as? String == "operator", "\(status.stdout)")
        #expect(destination["pending"] as? Int == 3)
        #expect((destination["oldestPendingAge"] as? Double ?? -1) >= 0)
        #expect(destination["stalled"] as? Bool == false)
        #expect(destination.keys.contains("lastSuccessAt"))

        let resume = try await Self.run(["ctl", "--db", db, "resume"])
        #expect(resume.status == 0 && resume.stdout == "resumed: default\n", "\(resume.stdout)")
        _ = await served.engine.observer.firstSnapshot { $0.depth == 0 && $0.deadLetters == 2 }

        let listed = try await Self.run(["dead", "--db", db, "list", "--json"])
        let letters = try #require(try Self.json(listed.stdout)["deadLetters"] as? [[String: Any]])
        #expect(letters.count == 2 && letters.allSatisfy { $0["reason"] as? String == "no Bad events here" }, "\(listed.stdout)")
        let export = try await Self.run(["dead", "--db", db, "export"])
        #expect(export.stdout.split(separator: "\n").count == 2)
        let ids = letters.compactMap { $0["id"] as? Int }

        served.sender.setScript { _, _ in SendResult(.delivered, status: 200) }
        let retried = try await Self.run(["dead", "--db", db, "retry", "\(ids[0])"])
        #expect(retried.stdout.hasPrefix("retried 1 dead letter (queued again; the engine sends them now)"), "\(retried.stdout) \(retried.stderr)")
        _ = await served.engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.deadLettersRetried == 1 }
        let purged = try await Self.run(["dead", "--db", db, "purge", "--all"])
        #expect(purged.status == 0 && purged.stdout == "purged 1 dead letter\n", "\(purged.stdout) \(purged.stderr)")
        let after = try Self.json(try await Self.run(["ctl", "--db", db, "status", "--json"]).stdout)
        #expect(after["deadLetters"] as? Int == 0 && after["deadLettersPurged"] as? Int == 1)
        let resentBad = served.sender.batches.flatMap(\.events).filter { $0.name == "Bad" }
        #expect(resentBad.count == 3, "two refused sends, then the retried one once")
        try await served.stop()
    }
}

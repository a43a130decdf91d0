import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// `beacon dead` found by messageId, destination, reason and text, and acted on in bulk by
/// filter, on a store no engine serves.
@Suite("beacon dead filters", .timeLimit(.minutes(2)))
struct DeadFilterTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    /// A sender that refuses every event named `Bad` by position and code, as a collector does.
    static func strict() -> RecordingSender {
        RecordingSender { batch, _ in
            let refused = batch.events.enumerated().filter { $0.element.name == "Bad" }.map { index, event in
                EventRejection(index: index, messageId: event.messageId, code: "event_too_large", reason: "Event \(index) is 3316 bytes; the limit is 32 KB.")
            }
            return refused.isEmpty ? SendResult(.delivered, status: 200) : SendResult(.rejected(refused), status: 400)
        }
    }

    @Test("list by destination, reason or text; retry by messageId; purge by filter")
    func filtersSelectLetters() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = directory + "/q.sqlite"
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: db),
            destinations: [Destination(name: "main", sender: Self.strict()), Destination(name: "backup", sender: Self.strict())],
            settings: EngineSettings(policy: .manual, batchSize: 100))
        let task = Task { try await engine.run() }
        var bad: [String] = []
        for index in 0..<5 {
            let receipt = try engine.tracker.track(index < 3 ? "Bad" : "Good", anonymousId: "a")
            if index < 3 { bad.append(receipt.messageId) }
        }
        await engine.queue.waitForPendingWrites()
        await engine.flush()
        _ = await engine.observer.firstSnapshot { $0.deadLetters == 6 && $0.depth == 0 }
        await engine.beginShutdown()
        try await task.value

        // beacon status: each destination's counts, and which destination each batch went to.
        let status = try await BeaconProcess.run(["status", "--db", db])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("destination  backup: 0 pending, 2 delivered"), "\(status.stdout)")
        #expect(status.stdout.contains("destination  main: 0 pending, 2 delivered"), "\(status.stdout)")
        let table = status.stdout.split(separator: "\n").drop { !$0.hasPrefix("batch ") }
        #expect(table.first?.contains("destination") == true, "\(status.stdout)")
        #expect(table.dropFirst().contains { $0.contains(" main ") } && table.dropFirst().contains { $0.contains(" backup ") }, "\(status.stdout)")
        let statusJSON = try await BeaconProcess.run(["status", "--db", db, "--json"])
        let destinations = try #require(try Self.json(statusJSON.stdout)["destinations"] as? [[String: Any]])
        #expect(destinations.map { $0["name"] as? String } == ["backup", "main"])
        #expect(destinations.allSatisfy { $0["pending"] as? Int == 0 && $0["delivered"] as? Int == 2 && $0["paused"] as? Bool == false })

        let main = try await BeaconProcess.run(["dead", "--db", db, "list", "--json", "--destination", "main"])
        #expect(main.status == 0, "\(main.stderr)")
        let mainLetters = try #require(try Self.json(main.stdout)["deadLetters"] as? [[String: Any]])
        #expect(try Self.json(main.stdout)["total"] as? Int == 3)
        #expect(mainLetters.allSatisfy { $0["destination"] as? String == "main" })
        let reasons = mainLetters.compactMap { $0["reason"] as? String }
        #expect(reasons.allSatisfy { $0.hasPrefix("event_too_large: Event ") && $0.contains("is 3316 bytes") }, "\(reasons)")
        #expect(Set(mainLetters.compactMap { $0["messageId"] as? String }) == Set(bad))
        for letter in mainLetters {
            let id = try #require(letter["messageId"] as? String)
            #expect((letter["reason"] as? String)?.contains("Event \(id) ") == true, "named by messageId, not position: \(letter)")
        }

        let found = try await BeaconProcess.run(["dead", "--db", db, "list", "--grep", bad[0]])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("2 dead letters"), "one per destination: \(found.stdout)")
        #expect(found.stdout.contains("main") && found.stdout.contains("backup"))

        let retried = try await BeaconProcess.run(["dead", "--db", db, "retry", bad[0]])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout == "retried 2 dead letters (queued again for the next engine on this store)\n")

        let purged = try await BeaconProcess.run(["dead", "--db", db, "purge", "--destination", "backup", "--reason", "TOO_LARGE"])
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(purged.stdout == "purged 2 dead letters\n")

        let left = try await BeaconProcess.run(["dead", "--db", db, "list", "--json"])
        let remaining = try #require(try Self.json(left.stdout)["deadLetters"] as? [[String: Any]])
        #expect(remaining.count == 2)
        #expect(remaining.allSatisfy { $0["destination"] as? String == "main" && $0["messageId"] as? String != bad[0] })

        let nothing = try await BeaconProcess.run(["dead", "--db", db, "retry", "--grep", "no-such-text"])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("no dead letter matches"), "\(nothing.stderr)")
    }

    @Test("filters and --all, or an empty filter, are bad usage", arguments: [
        ["retry", "--all", "--destination", "main"], ["purge", "--all", "--grep", "x"], ["list", "--grep", ""],
        ["retry", "--reason", ""], ["purge", "x", "--all"],
    ])
    func badUsage(arguments: [String]) async throws {
        let result = try await BeaconProcess.run(["dead", "--db", "/tmp/nowhere-dead.sqlite"] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
    }
}

import Foundation
import Testing

@Suite("Command line", .timeLimit(.minutes(2)))
struct CLITests {
    @Test func trackStatusFlushToAFile() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        let track = try await BeaconProcess.run(["track", "--db", db, "--count", "25", "--prop", "plan=pro", "--prop", "seats=3", "--print-ids"])
        #expect(track.status == 0, "\(track.stderr)")
        let ids = track.stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 25)

        let status = try await BeaconProcess.run(["status", "--db", db, "--json"])
        #expect(status.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["depth"] as? Int == 25)
        #expect(json["deadLetters"] as? Int == 0)
        #expect((json["bytes"] as? Int ?? 0) > 25 * 100)
        #expect((json["batches"] as? [Any])?.isEmpty == true)

        let out = "\(directory)/out.ndjson"
        let flush = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", "file://\(out)", "--batch-size", "10"])
        #expect(flush.status == 0, "\(flush.stderr)")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        let sent = try lines.map { line -> String in
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect((event["properties"] as? [String: Any])?["seats"] as? Int == 3)
            #expect((event["properties"] as? [String: Any])?["plan"] as? String == "pro")
            return try #require(event["messageId"] as? String)
        }
        #expect(sent == ids)

        let after = try await BeaconProcess.run(["status", "--db", db, "--json"])
        let afterJSON = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect(afterJSON["depth"] as? Int == 0)
        let batches = try #require(afterJSON["batches"] as? [[String: Any]])
        #expect(batches.count == 3)
        #expect(batches.allSatisfy { $0["outcome"] as? String == "sent" })
    }

    @Test func flushRefusedByTheCollectorExitsOneAndKeepsTheEvent() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        let collector = try RunningCollector(arguments: ["--db", "\(directory)/c.sqlite", "--write-key", "right"], directory: directory)
        defer { collector.stop() }
        let endpoint = try await collector.address()
        let track = try await BeaconProcess.run(["track", "--db", db])
        #expect(track.status == 0, "\(track.stderr)")

        let refused = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", endpoint, "--write-key", "wrong"])
        #expect(refused.status == 1)
        let reason = refused.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(reason.hasPrefix("beacon: flush gave up: HTTP 401 Unauthorized: "), "\(refused.stderr)")
        #expect(reason.hasSuffix("source; 1 event stays queued in \(db)"), "\(refused.stderr)")

        let accepted = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", endpoint, "--write-key", "right"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout == "flushed 1 event to \(endpoint) in 1 batch; queue empty\n")
    }

    @Test func stdinAcceptsGoodLinesAndReportsBadOnes() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        let input = """
            {"event":"Signed Up","properties":{"plan":"pro"},"userId":"u1"}
            {"event":"","properties":{}}
            not json

            {"event":"Logged In","anonymousId":"a1"}
            """
        let result = try await BeaconProcess.run(["track", "--db", db, "--stdin"], stdin: input)
        #expect(result.status == 2)
        #expect(result.stderr.contains("line 2: event name is empty"))
        #expect(result.stderr.contains("line 3: input is not valid JSON"))
        let status = try await BeaconProcess.run(["status", "--db", db, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["depth"] as? Int == 2)
    }

    @Test(arguments: [
        (["track", "--db"], "Missing value"),
        (["track", "--db", "FRESH_DB", "--count", "-1"], "--count"),
        (["track", "--db", "FRESH_DB", "--name", ""], "event name is empty"),
        (["track", "--db", "FRESH_DB", "--prop", "novalue"], "key=value"),
        (["status", "--db", "/nonexistent/q.sqlite"], "does not exist"),
        (["flush", "--db", "FRESH_DB", "--endpoint", "ftp://x"], "not an endpoint"),
        (["frobnicate"], "beacon"),
        (["bench", "nope"], "unknown benchmark"),
    ])
    func badUsageExitsTwoWithOneLine(arguments: [String], fragment: String) async throws {
        // FRESH_DB: a store path of this run's own, so no other run's file can change the answer.
        let db = try BeaconProcess.temporaryDirectory() + "/x.sqlite"
        let result = try await BeaconProcess.run(arguments.map { $0 == "FRESH_DB" ? db : $0 })
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(arguments): one line, got \(result.stderr)")
        #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
    }
}

/// `beacon events`: the queue's head and tail from the command line.
@Suite("beacon events", .timeLimit(.minutes(2)))
struct EventsCommandTests {
    @Test("Head, tail, the gap between, JSON, a filter, and clear refusals")
    func eventsCommand() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        let track = try await BeaconProcess.run(["track", "--db", db, "--name", "Order Completed", "--count", "30", "--print-ids"])
        #expect(track.status == 0, "\(track.stderr)")
        let ids = track.stdout.split(separator: "\n").map(String.init)
        let marked = try await BeaconProcess.run(["track", "--db", db, "--name", "Signed Up", "--prop", "plan=needle", "--print-ids"])
        let needleId = marked.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let json = try await BeaconProcess.run(["events", "--db", db, "--limit", "2", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let page = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(page["pending"] as? Int == 31 && page["matching"] as? Int == 31)
        let head = try #require(page["head"] as? [[String: Any]])
        let tail = try #require(page["tail"] as? [[String: Any]])
        #expect(head.compactMap { $0["messageId"] as? String } == Array(ids.prefix(2)))
        #expect(tail.compactMap { $0["messageId"] as? String } == [ids[29], needleId])
        #expect((head.first?["event"] as? [String: Any])?["event"] as? String == "Order Completed")

        let text = try await BeaconProcess.run(["events", "--db", db, "--limit", "2"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("… 27 more between the oldest 2 and the newest 2"), "\(text.stdout)")
        #expect(text.stdout.contains("31 events pending for any destination"))

        let grep = try await BeaconProcess.run(["events", "--db", db, "--grep", "needle", "--json"])
        let found = try #require(try JSONSerialization.jsonObject(with: Data(grep.stdout.utf8)) as? [String: Any])
        #expect(found["matching"] as? Int == 1)
        #expect(((found["head"] as? [[String: Any]]) ?? []).compactMap { $0["messageId"] as? String } == [needleId])
        let none = try await BeaconProcess.run(["events", "--db", db, "--grep", "absent"])
        #expect(none.status == 0 && none.stdout.contains("none of the 31 events pending for any destination contains \"absent\""))

        // `track` registers no destination: any name is unknown, and the error says which there are.
        let unknown = try await BeaconProcess.run(["events", "--db", db, "--destination", "backup"])
        #expect(unknown.status == 2 && unknown.stderr.contains("no destination named \"backup\""), "\(unknown.stderr)")
        for bad in [["--limit", "0"], ["--limit", "1001"], ["--limit", "-5"], ["--limit", "1e300"], ["--destination", ""]] {
            let refused = try await BeaconProcess.run(["events", "--db", db] + bad)
            #expect(refused.status == 2, "\(bad): \(refused.stderr)")
        }
        let missing = try await BeaconProcess.run(["events", "--db", "\(directory)/none.sqlite"])
        #expect(missing.status == 2 && missing.stderr.contains("does not exist"), "\(missing.stderr)")
        // Reading wrote nothing: the store's depth is as it was.
        let status = try await BeaconProcess.run(["status", "--db", db, "--json"])
        let after = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(after["depth"] as? Int == 31)
    }
}

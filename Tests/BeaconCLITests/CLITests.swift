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

import Foundation
import GRDB
import Testing

/// Answers over 1 MiB through the control channel (issue 22, F9): what `beacon dead`
/// reads on the store directly it must read through a serving engine too, promptly.
@Suite("beacon dead: large answers through the engine", .timeLimit(.minutes(3)))
struct DeadLetterLargeAnswerTests {
    static let letters = 300
    static let nameBytes = 13_000

    /// 300 dead letters whose names are 13 KB each: a `dead-list` answer of about 4 MB.
    @Test func aListOfFourMegabytesArrivesThroughTheEngine() async throws {
        let served = try await CtlCommandTests.Served.start()
        try await served.engine.tracker.track("Seed", anonymousId: "x").committed()
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(10)
        try await DatabaseQueue(path: served.store, configuration: configuration).write { db in
            for seq in 1...Self.letters {
                let name = "N\(seq)-" + String(repeating: "n", count: Self.nameBytes - "N\(seq)-".utf8.count)
                try db.execute(sql: """
                    INSERT INTO dead_letters (seq, destination, message_id, name, payload, reason, status, failed_at)
                    VALUES (?, 'default', ?, ?, CAST('{"event":"Big"}' AS BLOB), 'HTTP 400: refused', 400, 1764000000000)
                    """, arguments: [1_000 + seq, "m-\(seq)", name])
            }
        }
        let started = ContinuousClock.now
        let listed = try await BeaconProcess.run(["dead", "--db", served.store, "list", "--limit", "1000", "--json"])
        let elapsed = ContinuousClock.now - started
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.utf8.count > 1 << 20, "the answer is over 1 MiB: \(listed.stdout.utf8.count) bytes")
        let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        let letters = object?["deadLetters"] as? [[String: Any]] ?? []
        #expect(letters.count == Self.letters)
        #expect(letters.allSatisfy { ($0["name"] as? String)?.utf8.count == Self.nameBytes })
        #expect(elapsed < .seconds(9), "answered, not timed out: \(elapsed)")

        let text = try await BeaconProcess.run(["dead", "--db", served.store, "list"])
        #expect(text.status == 0, "\(text.stderr)")
        // The default --limit, 100 letters (1.3 MB): each on two lines, after a header.
        let shown = text.stdout.split(separator: "\n").filter { $0.contains("HTTP 400: refused") }
        #expect(shown.count == 100, "\(text.stdout.suffix(300))")
        let exported = try await BeaconProcess.run(["dead", "--db", served.store, "export"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.split(separator: "\n").count == Self.letters)
        try await served.stop()
    }
}

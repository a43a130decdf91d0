import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Synchronization
import Testing

/// The dead-letter workbench in a real terminal, attached to an engine: a letter found by
/// its messageId, opened whole, retried (refused again: the same id, two attempts) and
/// purged from the screen; letters selected by reason and retried in bulk; and the same
/// letters found, retried and purged by messageId with `beacon dead`.
@Suite("dead-letter workbench under tmux", .serialized)
struct DeadLetterWorkbenchTmuxTests {
    @Test("find by messageId, inspect, retry, purge; bulk retry by reason; the same from beacon dead",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(2)))
    func workbench() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/served.sqlite"
        // Batches of one: `Event 0` is the event, named in the reason by its messageId.
        let sender = RecordingSender { batch, _ in Self.refuse(batch) }
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: store), destination: Destination(sender: sender),
            settings: EngineSettings(policy: .manual, batchSize: 1))
        let task = Task { try await engine.run() }
        let control = try await engine.serveControl()
        var huge: [String] = []
        var refused: [String] = []
        for index in 0..<3 {
            huge.append(try engine.tracker.track("Huge", properties: ["index": .int(index)], anonymousId: "a").messageId)
            refused.append(try engine.tracker.track("Refused", properties: ["index": .int(index)], anonymousId: "a").messageId)
        }
        #expect(await engine.queue.waitForPendingWrites(timeout: .seconds(10)))
        await engine.flush()
        _ = await engine.observer.firstSnapshot { $0.deadLetters == 6 && $0.depth == 0 }
        let letters = try await engine.queue.deadLetters(limit: 10)
        let target = try #require(letters.first { $0.event.messageId == refused[0] })
        #expect(target.reason == "invalid_total: Event \(refused[0]): properties.total must be a number", "\(target.reason)")

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 80, height: 24, directory: directory)
        defer { tmux.kill() }
        try await tmux.waitForScreen("the attached header") { DashboardText.header($0).contains("MONITOR (attached)") }
        try tmux.press("d")
        try await tmux.waitForScreen("six letters") { $0.contains("Dead letters · 6") }

        // Found by its messageId.
        try tmux.press("/")
        try tmux.press(refused[0], literal: true)
        try tmux.press("Enter")
        try await tmux.waitForScreen("one match") { $0.contains("Dead letters · 1 match '\(refused[0])'") && $0.contains(" \(target.id) ") }
        // Inspected whole.
        try tmux.press("Enter")
        let detail = try await tmux.waitForScreen("the whole letter") {
            $0.contains("Dead letter \(target.id)") && $0.contains("attempt 1 ") && $0.contains("\"event\": \"Refused\"")
        }
        #expect(detail.contains("messageId \(refused[0])"), "\(detail)")
        // Retried from the pane: refused again, the same id with two attempts.
        try tmux.press("r")
        try await tmux.waitForScreen("the question") { $0.contains("live engine: retry dead letter \(target.id)?") }
        try tmux.press("y")
        try await tmux.waitForScreen("the letter back with two attempts") { $0.contains(" \(target.id) ") && $0.contains("×2") }
        let shown = try await Bounded.run(["dead", "--db", store, "show", "\(target.id)"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let history = try #require(try Self.json(shown.stdout)["history"] as? [[String: Any]], "\(shown.stdout)")
        #expect(history.map { $0["attempt"] as? Int } == [1, 2], "\(shown.stdout)")
        // Purged from the screen.
        try tmux.press("x")
        try await tmux.waitForScreen("the purge question") { $0.contains("purge dead letter \(target.id) for good?") }
        try tmux.press("y")
        try await tmux.waitForScreen("nothing matches") { $0.contains("no dead letter matches") }
        #expect(try await engine.queue.deadLetter(id: target.id) == nil)

        // Selected by reason and retried in bulk, the cause lifted.
        let accepted = Mutex<[String]>([])
        sender.setScript { batch, _ in
            accepted.withLock { $0 += batch.events.map(\.messageId) }
            return SendResult(.delivered, status: 200)
        }
        try tmux.press("/")
        for _ in 0..<40 { try tmux.press("BSpace") }
        try tmux.press("reason:too_large", literal: true)
        try tmux.press("Enter")
        try await tmux.waitForScreen("three huge letters") { $0.contains("Dead letters · 3 match 'reason:too_large'") }
        try tmux.press("R")
        try await tmux.waitForScreen("the bulk question") { 
            // Too long for 80 columns with its keys: the prefix goes, the question stays whole.
            $0.contains(" retry every dead letter matching 'reason:too_large'?  y yes  other key no")
        }
        try tmux.press("y")
        try await tmux.waitForScreen("none left matching") { $0.contains("no dead letter matches") }
        _ = await engine.observer.firstSnapshot { $0.deadLetters == 2 && $0.depth == 0 }
        #expect(accepted.withLock { $0 }.sorted() == huge.sorted(), "exactly the letters the search found were delivered, once each")

        // The same from `beacon dead`, by messageId.
        let found = try await Bounded.run(["dead", "--db", store, "list", "--grep", refused[1], "--json"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(try Self.json(found.stdout)["total"] as? Int == 1, "\(found.stdout)")
        let retried = try await Bounded.run(["dead", "--db", store, "retry", refused[1]])
        #expect(retried.status == 0, "\(retried.stdout) \(retried.stderr)")
        let purged = try await Bounded.run(["dead", "--db", store, "purge", refused[2]])
        #expect(purged.status == 0, "\(purged.stdout) \(purged.stderr)")
        let settled = await engine.observer.firstSnapshot { $0.deadLetters == 0 && $0.depth == 0 }
        #expect(settled != nil)
        #expect(accepted.withLock { $0 }.sorted() == (huge + [refused[1]]).sorted(), "retried by messageId; the purged one never sent")

        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
        await control.close()
        await engine.beginShutdown()
        try await task.value
    }

    /// `Huge` events refused as too large, `Refused` as invalid; the rest delivered.
    static func refuse(_ batch: OutgoingBatch) -> SendResult {
        let rejections = batch.events.enumerated().compactMap { index, event -> EventRejection? in
            switch event.name {
            case "Huge": return EventRejection(index: index, messageId: event.messageId, code: "event_too_large", reason: "Event \(index) is 41204 bytes")
            case "Refused":
                return EventRejection(index: index, messageId: event.messageId, code: "invalid_total", reason: "Event \(index): properties.total must be a number")
            default: return nil
            }
        }
        return rejections.isEmpty ? SendResult(.delivered, status: 200) : SendResult(.rejected(rejections), status: 400)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// `beacon monitor` in a real terminal, attached to an engine with dead letters: the
/// dead-letter view shows their reasons, `r` retries one through the engine, and `P`
/// pauses the destination.
@Suite("operator keys under tmux", .serialized)
struct OperatorKeysTmuxTests {
    @Test("d lists a dead letter's reason; r retries it through the engine; P pauses and resumes",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func deadLetterViewAndPause() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/served.sqlite"
        let sender = RecordingSender { batch, _ in
            let refused = batch.events.enumerated().filter { $0.element.name == "Refused" }.map {
                EventRejection(index: $0.offset, messageId: $0.element.messageId, reason: "no Refused events accepted here")
            }
            return refused.isEmpty ? SendResult(.delivered, status: 200) : SendResult(.rejected(refused), status: 400)
        }
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: store), destination: Destination(sender: sender),
            settings: EngineSettings(policy: .manual, batchSize: 50))
        let task = Task { try await engine.run() }
        let control = try await engine.serveControl()
        try await engine.tracker.track("Refused", anonymousId: "x").committed()
        await engine.flush()
        _ = await engine.observer.firstSnapshot { $0.deadLetters == 1 && $0.depth == 0 }

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 80, height: 24, directory: directory)
        defer { tmux.kill() }
        try await tmux.waitForScreen("the attached header") { DashboardText.header($0).contains("MONITOR (attached)") }
        try tmux.press("d")
        let view = try await tmux.waitForScreen("the dead letter's reason") {
            $0.contains("Dead letters") && $0.contains("Refused: no Refused events accepted here")
        }
        #expect(view.contains(" 400 "), "its HTTP status: \(view)")
        #expect(view.contains("\"event\":\"Refused\""), "its payload preview: \(view)")

        sender.setScript { _, _ in SendResult(.delivered, status: 200) }
        try tmux.press("r")
        try await tmux.waitForScreen("the question") { $0.contains("live engine: retry dead letter") }
        try tmux.press("y")
        try await tmux.waitForScreen("the list emptied by the retry") { $0.contains("no dead letters") }
        #expect(sender.batches.flatMap(\.events).filter { $0.name == "Refused" }.count == 2, "refused once, retried once")
        #expect(await engine.observer.snapshot.totals.deadLettersRetried == 1)

        try tmux.press("d")
        try await tmux.waitForScreen("the main view back") { !$0.contains("Dead letters") && $0.contains("Queue depth") }
        try tmux.press("P")
        try await tmux.waitForScreen("the question") { $0.contains("live engine: pause default?") }
        try tmux.press("y")
        try await tmux.waitForScreen("paused by operator", timeout: .seconds(30)) { $0.contains("paused by operator") }
        try await engine.tracker.track("Waits", anonymousId: "x").committed()
        try tmux.press("f")
        try await tmux.waitForScreen("the question") { $0.contains("live engine: flush?") }
        try tmux.press("y")
        try await tmux.waitForScreen("one event waiting") { DashboardText.depth(in: $0) == 1 }
        #expect(!sender.batches.flatMap(\.events).contains { $0.name == "Waits" }, "a paused destination sends nothing")
        try tmux.press("P")
        try await tmux.waitForScreen("the question") { $0.contains("live engine: resume default?") }
        try tmux.press("y")
        try await tmux.waitForScreen("drained after resume") { DashboardText.depth(in: $0) == 0 }
        #expect(sender.batches.flatMap(\.events).contains { $0.name == "Waits" })

        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
        await control.close()
        await engine.beginShutdown()
        try await task.value
    }

    @Test("a command the engine refuses is shown refused, with its reason, not as asked for",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(1)))
    func aRefusedCommandIsShownRefused() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/offline.sqlite"
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: store), destination: Destination(sender: RecordingSender()),
            settings: EngineSettings(policy: .manual, batchSize: 50, isOffline: true))
        let task = Task { try await engine.run() }
        let control = try await engine.serveControl()
        try await engine.tracker.track("Waits", anonymousId: "x").committed()

        let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 80, height: 24, directory: directory)
        defer { tmux.kill() }
        try await tmux.waitForScreen("the attached header") { DashboardText.header($0).contains("MONITOR (attached)") }
        try tmux.press("f")
        try await tmux.waitForScreen("the question") { $0.contains("live engine: flush?") }
        try tmux.press("y")
        // What `beacon ctl flush` prints (exiting 1) for an offline engine.
        let refused = try await tmux.waitForScreen("the refusal and the engine's reason") {
            $0.contains("refused: the engine is offline")
        }
        #expect(!refused.contains("flush requested"), "the screen does not say it went through: \(refused)")
        #expect(await engine.observer.snapshot.depth == 1, "nothing was sent")
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
        await control.close()
        await engine.beginShutdown()
        try await task.value
    }
}

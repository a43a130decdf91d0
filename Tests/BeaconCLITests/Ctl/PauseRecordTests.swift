import BeaconTesting
import Foundation
import GRDB
import Testing

/// Issue 22, finding 14: `ctl pause` answered `paused` even when the store could not
/// record the pause, so the operator believed it would survive a restart.
@Suite("ctl pause when the store cannot record it", .timeLimit(.minutes(2)))
struct PauseRecordTests {
    @Test func theAnswerSaysThePauseHoldsOnlyUntilTheEngineStops() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/agent.sqlite"
        let agent = try RunningAgent(store: store, endpoints: [AgentCommandTests.nowhere], directory: directory)
        defer { agent.stop() }
        _ = try await agent.address()
        // The table of recorded pauses is gone from under the engine: its write fails.
        try await StoreFile.open(store).write { db in try db.execute(sql: "DROP TABLE destination_pauses") }

        let json = try await BeaconProcess.run(["ctl", "--db", store, "--json", "pause", "default"])
        #expect(json.status == 0, "\(json.stderr)")
        let answer = try DeadCommandTests.json(json.stdout)
        #expect(answer["paused"] as? [String] == ["default"])
        #expect(answer["recorded"] as? Bool == false, "\(json.stdout)")
        #expect((answer["warning"] as? String)?.contains("not across a restart") == true, "\(json.stdout)")

        let text = try await BeaconProcess.run(["ctl", "--db", store, "pause", "default"])
        #expect(text.status == 0 && text.stdout == "paused: default\n", "\(text.stdout)")
        #expect(text.stderr.hasPrefix("warning: the store could not record the pause of default"), "\(text.stderr)")
    }
}

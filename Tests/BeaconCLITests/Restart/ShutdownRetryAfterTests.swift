import BeaconTesting
import Foundation
import Testing

/// Issue 45, finding 9: a shutdown keeps to `Retry-After`. A collector answers 429 with
/// `Retry-After: 86400`; SIGTERM while the agent waits it out sends that collector
/// nothing more, says so in the log, and leaves the events queued for the next start.
@Suite("a shutdown keeps to Retry-After", .timeLimit(.minutes(2)))
struct ShutdownRetryAfterTests {
    static func faulted(_ collector: String) async throws -> Int? {
        let stats = try await HTTPAnswer.send("GET", collector + "/v1/stats").text
        return ((try? JSONSerialization.jsonObject(with: Data(stats.utf8))) as? [String: Any])?["faulted"] as? Int
    }

    @Test("SIGTERM while a destination waits out a day's Retry-After: no request to it, the events stay queued")
    func sigtermDuringADaysRetryAfter() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let collector = try RunningCollector(
            arguments: ["--db", directory + "/c.sqlite", "--throttle-rate", "1", "--retry-after", "86400"], directory: directory)
        defer { collector.stop() }
        let collectorBase = try await collector.address()
        let store = directory + "/agent.sqlite"
        let agent = try RunningAgent(
            store: store, endpoints: ["main=" + collectorBase], arguments: ["--policy", "count 5", "--log-level", "info"],
            directory: directory)
        defer { agent.stop() }
        let base = try await agent.address()
        let events = (0..<5).map { AgentCommandTests.event("quiet-\($0)") }
        let posted = try await HTTPAnswer.send("POST", base + "/v1/batch", body: AgentCommandTests.batch(events))
        #expect(posted.status == 200, "\(posted.text)")

        // The collector has answered 429 once: the agent backs off for as long as its policy lets a server ask.
        let throttled = try await BeaconTesting.eventually(within: .seconds(30), every: .milliseconds(50)) {
            let main = ProcessHeavy.IncidentTmuxTests.destination(try await ProcessHeavy.IncidentTmuxTests.status(store))
            return main["state"] as? String == "backing off"
        }
        #expect(throttled, "the agent backs off after the 429")
        let before = try await Self.faulted(collectorBase)
        #expect(before == 5, "one request of 5 events answered 429")

        let exit = try await agent.terminate(within: .seconds(20))
        #expect(exit == 0, "a graceful exit: \(agent.stderr.suffix(1000))")
        #expect(try await Self.faulted(collectorBase) == before, "no request after SIGTERM: \(agent.stderr.suffix(1000))")
        #expect(agent.stderr.contains("final flush skipped: the destination's server asked to wait past the shutdown"), "\(agent.stderr.suffix(1000))")
        let status = try await BeaconProcess.run(["status", "--db", store, "--json"])
        let depth = ((try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any])?["depth"] as? Int
        #expect(depth == 5, "the events wait in the store for the next start: \(status.stdout.prefix(300))")
    }
}

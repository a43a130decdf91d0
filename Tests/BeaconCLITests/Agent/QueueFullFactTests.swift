import BeaconTesting
import Foundation
import Testing

/// Issue 45, finding 8: one fact for "full". At a bound of 10 events, a post the agent
/// refused with 503 `queue_full` while the queue held 8 was not full to `/health` (200)
/// nor to `beacon_engine_queue_full` (0). Now every refusal is matched, at that moment,
/// by `/health` 503, the metric at 1 and `ctl status` saying full; a post taken ends it.
@Suite("one fact for a full queue", .timeLimit(.minutes(2)))
struct QueueFullFactTests {
    struct Surfaces: Equatable, CustomStringConvertible {
        var health: Int
        var metric: Double?
        var ctlFull: Bool?
        var description: String { "health \(health), metric \(metric.map { "\($0)" } ?? "none"), ctl full \(ctlFull.map(String.init) ?? "none")" }
    }

    static func surfaces(_ base: String, store: String) async throws -> Surfaces {
        let health = try await HTTPAnswer.send("GET", base + "/health").status
        let metrics = try await HTTPAnswer.send("GET", base + "/metrics").text
        let metric = metrics.split(separator: "\n").first { $0.hasPrefix("beacon_engine_queue_full ") }.flatMap { Double($0.dropFirst(25)) }
        let status = try await ProcessHeavy.IncidentTmuxTests.status(store)
        return Surfaces(health: health, metric: metric, ctlFull: (status["queue"] as? [String: Any])?["full"] as? Bool)
    }

    @Test("bound 10: each refused post is matched by /health 503, the metric at 1 and ctl status full; a post taken ends it")
    func everyRefusalIsMatchedEverywhere() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/agent.sqlite"
        // Nothing drains: the destination refuses connections, so the depth is what was posted.
        let agent = try RunningAgent(
            store: store, endpoints: [AgentCommandTests.nowhere], arguments: ["--max-queue-events", "10"], directory: directory)
        defer { agent.stop() }
        let base = try await agent.address()
        var sent = 0
        func post(_ count: Int) async throws -> Int {
            let events = (0..<count).map { AgentCommandTests.event("full-\(sent + $0)") }
            sent += count
            return try await HTTPAnswer.send("POST", base + "/v1/batch", body: AgentCommandTests.batch(events)).status
        }
        let full = Surfaces(health: 503, metric: 1, ctlFull: true)
        let room = Surfaces(health: 200, metric: 0, ctlFull: false)

        #expect(try await post(4) == 200)
        #expect(try await post(4) == 200)
        let first = try await post(4)  // 8 + 4 > 10
        #expect(first == 503)
        #expect(try await Self.surfaces(base, store: store) == full, "at once after the refusal at 8 of 10")
        #expect(try await post(1) == 200)  // 9 of 10: it fits, the refusal is over
        var last = try await Self.surfaces(base, store: store)
        if last != room {
            // The metric follows the engine's next snapshot of the new depth.
            _ = try await BeaconTesting.eventually(within: .seconds(10), every: .milliseconds(50)) {
                last = try await Self.surfaces(base, store: store)
                return last == room
            }
        }
        #expect(last == room, "room again at 9 of 10")
        #expect(last.health == 200, "/health and ctl say so at once: \(last)")
        #expect(try await post(2) == 503)  // 9 + 2 > 10
        #expect(try await Self.surfaces(base, store: store) == full, "at once after the refusal at 9 of 10")
        #expect(try await post(1) == 200)  // 10 of 10: full by the bound itself
        #expect(try await post(1) == 503)
        #expect(try await Self.surfaces(base, store: store) == full, "at the bound")
        let totals = (try await ProcessHeavy.IncidentTmuxTests.status(store))["totals"] as? [String: Any] ?? [:]
        #expect(totals["refused"] as? Int == 7 && totals["dropped"] as? Int == 0, "refused 4 + 2 + 1, nothing dropped: \(totals)")
    }
}

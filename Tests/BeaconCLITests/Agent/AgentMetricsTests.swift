import Foundation
import Testing

/// `beacon agent`'s `/metrics` against Prometheus' own checker, and a queue at its bound:
/// refused with `queue_full`, reported by `/health`, `ctl status` and `/metrics` alike.
@Suite("beacon agent: metrics and a full queue", .timeLimit(.minutes(3)))
struct AgentMetricsTests {
    /// Prometheus' checker, which Debian's `prometheus` package ships (`.ci/run` installs it).
    static let promtool = "/usr/bin/promtool"

    /// `promtool check metrics` on `text`: its exit status and what it printed.
    static func check(_ text: String) async throws -> (status: Int32, output: String) {
        try #require(FileManager.default.isExecutableFile(atPath: promtool), "promtool is missing: install Debian's prometheus package")
        let result = try await BeaconProcess.run(["check", "metrics"], stdinBytes: Data(text.utf8), executable: promtool)
        return (result.status, result.stdout + result.stderr)
    }

    /// The lines of `text` that name metric `name` (samples, `# HELP`, `# TYPE`).
    static func lines(_ text: String, _ name: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(name) || $0.hasPrefix("# HELP \(name)") || $0.hasPrefix("# TYPE \(name)") }
    }

    @Test("promtool check metrics passes on the agent's and the collector's /metrics; the agent's ingest has its own names")
    func promtoolPasses() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (collector, collectorBase) = try await AgentCommandTests.diskCollector(in: directory)
        defer { collector.stop() }
        let agent = try RunningAgent(
            store: directory + "/agent.sqlite", endpoints: ["main=" + collectorBase, "backup=" + AgentCommandTests.nowhere],
            arguments: ["--policy", "count 10 or 200ms"], directory: directory)
        defer { agent.stop() }
        let base = try await agent.address()
        let events = (0..<20).map { AgentCommandTests.event("prom-\($0)") }
        #expect(try await HTTPAnswer.send("POST", base + "/v1/batch", body: AgentCommandTests.batch(events)).status == 200)
        let invalid = AgentCommandTests.batch([#"{"type":"track","messageId":"no-event-name"}"#])
        #expect(try await HTTPAnswer.send("POST", base + "/v1/batch", body: invalid).status == 400)
        #expect(try await HTTPAnswer.send("POST", collectorBase + "/v1/batch", body: invalid).status == 400)

        var text = ""
        var settled = false
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            text = try await HTTPAnswer.send("GET", base + "/metrics").text
            // The delivered count comes with the settle, the last success with the batch's
            // report just after it: a scrape between the two has one and not the other.
            if prometheusValue(text, "beacon_engine_delivered_events_total", destination: "main") == 20,
                prometheusValue(text, "beacon_engine_last_success_timestamp_seconds", destination: "main") != nil,
                prometheusValue(text, "beacon_engine_destination_state", destination: "backup").map({ _ in true }) == true,
                text.contains(#"beacon_engine_destination_state{destination="backup",state="backing_off"} 1"#) {
                settled = true
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(settled, "main delivered its 20 events and backup backs off, within 30 s: \(Self.lines(text, "beacon_engine_"))")
        let agentCheck = try await Self.check(text)
        #expect(agentCheck.status == 0 && agentCheck.output.isEmpty, "\(agentCheck.output)\n\(text)")
        let collectorText = try await HTTPAnswer.send("GET", collectorBase + "/metrics").text
        let collectorCheck = try await Self.check(collectorText)
        #expect(collectorCheck.status == 0 && collectorCheck.output.isEmpty, "\(collectorCheck.output)\n\(collectorText)")

        // Every metric is described and typed once; the agent's ingest is not a collector.
        for exposition in [text, collectorText] {
            let types = exposition.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.count
            let helps = exposition.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.count
            #expect(types > 10 && helps == types, "\(helps) HELP for \(types) TYPE")
            #expect(!exposition.contains("(no description)"), "\(exposition)")
        }
        #expect(!text.contains("beacon_collector_"), "\(text)")
        #expect(text.contains("beacon_agent_ingest_events_stored_total 20"), "\(text)")
        #expect(text.contains(#"beacon_agent_ingest_events_rejected_total{reason="missing_event_name"} 1"#), "\(Self.lines(text, "beacon_agent_ingest_events_rejected"))")
        #expect(collectorText.contains(#"beacon_collector_errors_total{code="invalid_events"} 1"#) || collectorText.contains(#"beacon_collector_errors_total{code="missing_event_name"} 1"#),
                "\(Self.lines(collectorText, "beacon_collector_errors"))")

        // The gauges an operator alerts on.
        #expect(text.contains(#"beacon_engine_destination_state{destination="backup",state="backing_off"} 1"#), "\(Self.lines(text, "beacon_engine_destination_state"))")
        #expect(text.contains(#"beacon_engine_destination_state{destination="main",state="backing_off"} 0"#))
        #expect((prometheusValue(text, "beacon_engine_consecutive_failures", destination: "backup") ?? 0) >= 1)
        #expect(prometheusValue(text, "beacon_engine_last_success_timestamp_seconds", destination: "main").map { $0 > 1.7e9 } == true)
        #expect(prometheusValue(text, "beacon_engine_last_success_timestamp_seconds", destination: "backup") == nil, "unknown is absent, not 0")
        #expect(text.contains("beacon_engine_queue_capacity_events 1000000"), "\(Self.lines(text, "beacon_engine_queue"))")
        #expect(text.contains("beacon_engine_queue_full 0"))
        #expect(text.contains("beacon_engine_queue_events 20"), "backup still holds them: \(Self.lines(text, "beacon_engine_queue"))")
    }

    @Test("a queue at its bound: 503 queue_full with Retry-After; /health, ctl status and /metrics say so; track names its drops")
    func fullQueue() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/agent.sqlite"
        let filled = try await BeaconProcess.run(["track", "--db", store, "--count", "150", "--max-queue-events", "100"])
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "queued 150 events in \(store) (depth 100)\n")
        #expect(filled.stderr.contains("the queue was full: its 50 oldest events were dropped"), "\(filled.stderr)")

        let agent = try RunningAgent(
            store: store, endpoints: [AgentCommandTests.nowhere], arguments: ["--max-queue-events", "100"], directory: directory)
        defer { agent.stop() }
        let base = try await agent.address()
        let refused = try await HTTPAnswer.send("POST", base + "/v1/batch", body: AgentCommandTests.batch([AgentCommandTests.event("one-too-many")]))
        #expect(refused.status == 503)
        #expect(refused.errorCode == "queue_full", "\(refused.text)")
        #expect(refused.json["code"] as? String == "queue_full")
        #expect(refused.headers["retry-after"] == "5")
        #expect((refused.json["message"] as? String)?.contains("100 of 100 events") == true, "\(refused.text)")

        let health = try await HTTPAnswer.send("GET", base + "/health")
        #expect(health.status == 503)
        #expect((health.json["problem"] as? String)?.hasPrefix("queue full: 100 of 100 events") == true, "\(health.text)")

        let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let queue = try #require(json["queue"] as? [String: Any], "\(status.stdout)")
        #expect(queue["full"] as? Bool == true)
        #expect(queue["maxEvents"] as? Int == 100)
        #expect(queue["events"] as? Int == 100)
        let text = try await BeaconProcess.run(["ctl", "--db", store, "status"])
        #expect(text.stdout.contains("queue        100 of 100 events"), "\(text.stdout)")
        #expect(text.stdout.contains("FULL"))

        let metrics = try await HTTPAnswer.send("GET", base + "/metrics").text
        #expect(metrics.contains("beacon_engine_queue_full 1"), "\(Self.lines(metrics, "beacon_engine_queue"))")
        #expect(metrics.contains(#"beacon_agent_ingest_errors_total{code="queue_full"} 1"#), "\(Self.lines(metrics, "beacon_agent_ingest_errors"))")
        #expect(metrics.contains("beacon_engine_queue_capacity_events 100"))
    }

    @Test("queue bounds out of range are refused with exit 2", arguments: [
        ["--max-queue-events", "0"], ["--max-queue-events", "-5"], ["--max-queue-events", "100000001"],
        ["--max-queue-events", "1e300"], ["--max-queue-bytes", "65535"], ["--max-queue-bytes", "9223372036854775808"],
        ["--max-queue-bytes", "NaN"],
    ])
    func badBounds(arguments: [String]) async throws {
        for command in [["track", "--db", "/tmp/nowhere-bounds.sqlite"], ["agent", "--db", "/tmp/nowhere-bounds.sqlite"]] {
            let result = try await BeaconProcess.run(command + arguments)
            #expect(result.status == 2, "\(command[0]) \(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
        }
    }
}

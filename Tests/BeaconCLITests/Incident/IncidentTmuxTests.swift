import BeaconTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ProcessHeavy {
    /// The incident an on-call engineer drives the console through, with real processes: a
    /// collector killed and restored, retry-now, a poison event, a queue filled to its
    /// bound, the engine killed. At each step the monitor (80x24 in tmux), `ctl status --json` and `/metrics`
    /// say the same thing.
    @Suite("an incident on the console", .timeLimit(.minutes(3)))
    struct IncidentTmuxTests {
        static func status(_ store: String) async throws -> [String: Any] {
            let result = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }

        static func destination(_ status: [String: Any]) -> [String: Any] {
            (status["destinations"] as? [[String: Any]])?.first ?? [:]
        }

        /// Polls `condition` (bounded): what the processes say changes as they work.
        static func eventually(_ what: String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
            if try await BeaconTesting.eventually(within: timeout, every: .milliseconds(100), condition) { return }
            Issue.record("not within \(timeout): \(what)")
        }

        @Test("outage, retry-now, a poison event, a full queue and a lost engine: screen, ctl status and /metrics agree",
              .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"))
        func incident() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let store = directory + "/agent.sqlite"
            var collector = try RunningCollector(arguments: ["--db", directory + "/c.sqlite"], directory: directory)
            defer { collector.stop() }
            let collectorBase = try await collector.address()
            let port = try #require(Int(collectorBase.split(separator: ":").last ?? ""))
            let agent = try RunningAgent(
                store: store, endpoints: ["main=" + collectorBase],
                arguments: ["--policy", "count 10 or 200ms", "--max-queue-events", "300"], directory: directory)
            defer { agent.stop() }
            let base = try await agent.address()
            let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 80, height: 24, directory: directory)
            defer { tmux.kill() }
            try await tmux.waitForScreen("the attached header") { DashboardText.header($0).contains("MONITOR (attached)") }
            var sent = 0
            func post(_ count: Int) async throws -> HTTPAnswer {
                let events = (0..<count).map { AgentCommandTests.event("incident-\(sent + $0)") }
                let answer = try await HTTPAnswer.send("POST", base + "/v1/batch", body: AgentCommandTests.batch(events))
                if answer.status == 200 { sent += count }
                return answer
            }

            // 1. The collector goes down: backing off, with the attempt count and the next retry.
            collector.stop()
            #expect(try await post(50).status == 200)
            try await tmux.waitForScreen("backing off on the screen, with the failures so far", timeout: .seconds(30)) {
                $0.contains("retrying in") && $0.contains("failure")
            }
            try await Self.eventually("ctl status: backing off with the next retry") {
                let main = Self.destination(try await Self.status(store))
                return main["state"] as? String == "backing off" && main["nextRetryAt"] is String
                    && (main["consecutiveFailures"] as? Int ?? 0) >= 1
            }
            try await Self.eventually("/metrics: backing_off") {
                let metrics = try await HTTPAnswer.send("GET", base + "/metrics").text
                return metrics.contains(#"beacon_engine_destination_state{destination="main",state="backing_off"} 1"#)
            }

            // 2. Restored, and retry-now ends the backoff at once: everything is delivered.
            // Back with a smaller event limit, so that one event below can be poison.
            collector = try RunningCollector(
                arguments: ["--db", directory + "/c.sqlite", "--max-event-bytes", "2048"], directory: directory, port: port)
            _ = try await collector.address()
            let retry = try await BeaconProcess.run(["ctl", "--db", store, "retry-now"])
            #expect(retry.status == 0, "\(retry.stderr)")
            try await Self.eventually("delivered after retry-now") {
                (try await Self.status(store))["depth"] as? Int == 0
            }
            try await tmux.waitForScreen("depth 0 on the screen") { DashboardText.depth(in: $0) == 0 && !$0.contains("retrying in") }
            try await Self.eventually("/metrics: every event delivered, main no longer backing off") {
                let metrics = try await HTTPAnswer.send("GET", base + "/metrics").text
                return prometheusValue(metrics, "beacon_engine_delivered_events_total", destination: "main") == Double(sent)
                    && metrics.contains(#"beacon_engine_destination_state{destination="main",state="backing_off"} 0"#)
            }

            // 3. A poison event: the collector refuses it for good. It is dead-lettered with its
            // code and messageId, the events after it flow, and every view counts it.
            let blob = String(repeating: "x", count: 3000)
            let poison = try await HTTPAnswer.send(
                "POST", base + "/v1/batch",
                body: AgentCommandTests.batch([AgentCommandTests.event("incident-poison", extra: #","context":{"blob":"\#(blob)"}"#)]))
            #expect(poison.status == 200, "the agent takes it: only the collector's limit is smaller")
            #expect(try await post(20).status == 200)
            try await Self.eventually("ctl status: one dead letter, nothing pending") {
                let status = try await Self.status(store)
                return status["deadLetters"] as? Int == 1 && status["depth"] as? Int == 0
            }
            try await Self.eventually("/metrics: one dead letter held, the rest delivered") {
                let metrics = try await HTTPAnswer.send("GET", base + "/metrics").text
                return metrics.contains("beacon_engine_dead_letters 1")
                    && prometheusValue(metrics, "beacon_engine_delivered_events_total", destination: "main") == Double(sent)
            }
            try tmux.press("d")
            let letter = try await tmux.waitForScreen("the poison event's letter on the screen") {
                $0.contains("Dead letters · 1") && $0.contains(" 400 ") && $0.contains("event_too_large: HTTP 400: Event incident-")
            }
            #expect(letter.contains("\"messageId\":\"incident-poison\""), "its payload preview: \(letter)")
            try tmux.press("Enter")
            try await tmux.waitForScreen("its whole reason in the detail pane") {
                $0.contains("attempt 1 ") && $0.contains("incident-poison is 3164 bytes, more than the limit of 2048")
            }
            try tmux.press("Escape")
            try tmux.press("d")
            try await tmux.waitForScreen("the main view again") { $0.contains("dead-lettered 1") }

            // 4. Down again until the queue is full: 503 queue_full, and every view says so.
            collector.stop()
            var full: HTTPAnswer?
            for _ in 0..<10 {
                let answer = try await post(50)
                if answer.status == 503 {
                    full = answer
                    break
                }
            }
            #expect(full?.errorCode == "queue_full", "\(full?.text ?? "never refused")")
            // What the bound does here, and what it cost: the agent refused the last 50, it dropped nothing.
            let fullScreen = try await tmux.waitForScreen("QUEUE FULL on the screen, with what the bound does") {
                $0.contains("QUEUE FULL: new events refused (50 so far) · 300 of 300 events")
            }
            #expect(!fullScreen.contains("dropped ·"), "\(fullScreen)")
            try await Self.eventually("ctl status: queue full, refusing new events, 50 refused, none dropped") {
                let status = try await Self.status(store)
                let queue = status["queue"] as? [String: Any] ?? [:]
                let totals = status["totals"] as? [String: Any] ?? [:]
                return queue["full"] as? Bool == true && queue["whenFull"] as? String == "refuse new"
                    && totals["refused"] as? Int == 50 && totals["dropped"] as? Int == 0
            }
            try await Self.eventually("/metrics: queue full") {
                try await HTTPAnswer.send("GET", base + "/metrics").text.contains("beacon_engine_queue_full 1")
            }
            let health = try await HTTPAnswer.send("GET", base + "/health")
            #expect(health.status == 503)

            // 5. The engine dies: the screen says it is lost, and since when; ctl finds no engine.
            agent.kill9()
            let lost = try await tmux.waitForScreen("ENGINE LOST on the screen") { $0.contains("ENGINE LOST at ") }
            #expect(lost.contains("in               unknown") || lost.contains("unknown"), "\(lost)")
            let gone = try await BeaconProcess.run(["ctl", "--db", store, "status"])
            #expect(gone.status == 1 && gone.stderr.contains("no engine serves"), "\(gone.stderr)")
            try tmux.press("q")
            #expect(try await tmux.waitForExit() == 0)
        }
    }
}

import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `beacon agent` as a process: the Segment ingest, durability before the 200, refusals
/// like the collector's, `/metrics`, and the drain on SIGTERM. Loopback only.
@Suite("beacon agent", .timeLimit(.minutes(3)))
struct AgentCommandTests {
    /// A port nothing listens on: events sent there stay queued (connection refused).
    static let nowhere = "http://127.0.0.1:9"

    /// The events table of a store, read from the file (another process's, or a killed one's).
    static func queued(_ store: String) throws -> [(messageId: String, payload: String)] {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: store, configuration: configuration)
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT message_id, CAST(payload AS TEXT) FROM events ORDER BY seq").map { row in
                (row[0], row[1])
            }
        }
    }

    /// A `beacon collector --db` in `directory`, and its base URL once it listens.
    static func diskCollector(in directory: String) async throws -> (RunningCollector, String) {
        let collector = try RunningCollector(arguments: ["--db", directory + "/collector.sqlite"], directory: directory)
        do {
            return (collector, try await collector.address())
        } catch {
            collector.stop()
            throw error
        }
    }

    static func event(_ id: String, extra: String = "") -> String {
        #"{"type":"track","event":"Agent Test","messageId":"\#(id)","userId":"u-1","timestamp":"2026-01-31T12:00:00.000Z","properties":{"n":1}\#(extra)}"#
    }

    static func batch(_ events: [String]) -> Data {
        Data(#"{"batch":[\#(events.joined(separator: ","))],"sentAt":"2026-01-31T12:00:01.000Z"}"#.utf8)
    }

    @Test("agent --help names every flag; a bad flag exits 2 with one line")
    func help() async throws {
        let result = try await BeaconProcess.run(["agent", "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        for flag in ["--db", "--endpoint", "--write-key", "--destination-write-key", "--listen", "--policy", "--batch-size", "--log-level"] {
            #expect(result.stdout.contains(flag), "\(flag) missing from the help")
        }
        for arguments in [
            ["--listen", "127.0.0.1:70000"], ["--listen", "nohost"], ["--listen", "127.0.0.1:-1"], ["--batch-size", "0"],
            ["--batch-size", "1e300"], ["--policy", "count NaN"], ["--endpoint", "ftp://x"], ["--write-key", ""],
        ] {
            let bad = try await BeaconProcess.run(["agent", "--db", "/tmp/beacon-agent-unused.sqlite", "--endpoint", Self.nowhere] + arguments)
            #expect(bad.status == 2, "\(arguments): \(bad.stderr)")
            #expect(bad.stderr.split(separator: "\n").count == 1, "\(arguments): \(bad.stderr)")
        }
        let none = try await BeaconProcess.run(["agent", "--db", "/tmp/beacon-agent-unused.sqlite"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("--endpoint"))
    }

    @Test("200 only after the commit: kill -9 after the answer, the events are in the store, JSON and messageId intact")
    func durableBeforeTheAnswer() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/agent.sqlite"
        let agent = try RunningAgent(store: store, endpoints: [Self.nowhere], arguments: ["--write-key", "k1"], directory: directory)
        defer { agent.stop() }
        let base = try await agent.address()
        #expect(agent.stdout == "listening on \(base)\n")
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let events = (0..<50).map { Self.event("durable-\($0)") }
        let answer = try await HTTPAnswer.send("POST", base + "/v1/batch", body: Self.batch(events), headers: HTTPAnswer.basic("k1"))
        #expect(answer.status == 200, "\(answer.text)")
        let single = try await HTTPAnswer.send(
            "POST", base + "/v1/identify", body: Data(#"{"messageId":"durable-identify","userId":"u-9","traits":{"plan":"pro"}}"#.utf8),
            headers: HTTPAnswer.basic("k1"))
        #expect(single.status == 200, "\(single.text)")
        let faults = try await HTTPAnswer.send("PUT", base + "/admin/faults", body: Data(#"{"preset":"down"}"#.utf8))
        #expect(faults.status == 404, "the agent takes no injected faults: \(faults.text)")
        agent.kill9()

        let rows = try Self.queued(store)
        #expect(rows.map(\.messageId) == (0..<50).map { "durable-\($0)" } + ["durable-identify"])
        #expect(rows.first?.payload == events[0], "the client's JSON, byte for byte")
        let identify = try #require(rows.last?.payload)
        #expect(identify.contains(#""type":"identify""#), "the route's type is written into the event: \(identify)")
    }

    @Test("refuses what the collector refuses, with the same status and code, and stores none of it")
    func refusesLikeTheCollector() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/agent.sqlite"
        let agent = try RunningAgent(store: store, endpoints: [Self.nowhere], arguments: ["--write-key", "k1"], directory: directory)
        defer { agent.stop() }
        let collector = try RunningCollector(arguments: ["--write-key", "k1"], directory: directory)
        defer { collector.stop() }
        let agentBase = try await agent.address()
        let collectorBase = try await collector.address()

        var invalidUTF8 = Data(Self.batch([Self.event("utf8-1")]))
        invalidUTF8.replaceSubrange(try #require(invalidUTF8.range(of: Data("Agent Test".utf8))), with: Data([0x41, 0xC3, 0x28, 0xFF]))
        let huge = Self.batch((0..<40).map { Self.event("huge-\($0)", extra: #","pad":"\#(String(repeating: "x", count: 15_000))""#) })
        let cases: [(String, Data, [String: String])] = [
            ("invalid JSON", Data(#"{"batch":[{"type":"track",}]}"#.utf8), HTTPAnswer.basic("k1")),
            ("NUL in messageId", Self.batch([Self.event(#"a\u0000b"#)]), HTTPAnswer.basic("k1")),
            ("huge body", huge, HTTPAnswer.basic("k1")),
            ("event over 32 KB", Self.batch([Self.event("big", extra: #","pad":"\#(String(repeating: "y", count: 40_000))""#)]), HTTPAnswer.basic("k1")),
            ("properties not an object", Self.batch([#"{"type":"track","event":"E","messageId":"w1","userId":"u","properties":5}"#]), HTTPAnswer.basic("k1")),
            ("messageId a number", Self.batch([#"{"type":"track","event":"E","messageId":7,"userId":"u"}"#]), HTTPAnswer.basic("k1")),
            ("unknown type", Self.batch([#"{"type":"frob","event":"E","messageId":"w2","userId":"u"}"#]), HTTPAnswer.basic("k1")),
            ("no identity", Self.batch([#"{"type":"track","event":"E","messageId":"w3"}"#]), HTTPAnswer.basic("k1")),
            ("bad timestamp", Self.batch([Self.event("w4").replacingOccurrences(of: "2026-01-31T12:00:00.000Z", with: "yesterday")]), HTTPAnswer.basic("k1")),
            ("invalid UTF-8", invalidUTF8, HTTPAnswer.basic("k1")),
            ("NaN", Data(#"{"batch":[{"type":"track","event":"E","messageId":"n1","userId":"u","properties":{"v":NaN}}]}"#.utf8), HTTPAnswer.basic("k1")),
            ("Infinity", Data(#"{"batch":[{"type":"track","event":"E","messageId":"n2","userId":"u","properties":{"v":Infinity}}]}"#.utf8), HTTPAnswer.basic("k1")),
            ("repeated messageId", Self.batch([Self.event("twice"), Self.event("twice")]), HTTPAnswer.basic("k1")),
            ("wrong write key", Self.batch([Self.event("key-1")]), HTTPAnswer.basic("nope")),
            ("no write key", Self.batch([Self.event("key-2")]), [:]),
            ("empty body", Data(), HTTPAnswer.basic("k1")),
        ]
        for (name, body, headers) in cases {
            let fromAgent = try await HTTPAnswer.send("POST", agentBase + "/v1/batch", body: body, headers: headers)
            let fromCollector = try await HTTPAnswer.send("POST", collectorBase + "/v1/batch", body: body, headers: headers)
            #expect(fromAgent.status >= 400, "\(name): \(fromAgent.status) \(fromAgent.text.prefix(300))")
            #expect(fromAgent.status == fromCollector.status, "\(name): agent \(fromAgent.text.prefix(300)) collector \(fromCollector.text.prefix(300))")
            #expect(fromAgent.errorCode == fromCollector.errorCode, "\(name)")
            #expect(fromAgent.rejectedCodes == fromCollector.rejectedCodes, "\(name)")
        }
        // Numbers JSON can carry, however large, are accepted by both and kept as written.
        let large = Self.batch([Self.event("big-number", extra: #","v":1e300,"w":-9223372036854775809"#)])
        let agentLarge = try await HTTPAnswer.send("POST", agentBase + "/v1/batch", body: large, headers: HTTPAnswer.basic("k1"))
        let collectorLarge = try await HTTPAnswer.send("POST", collectorBase + "/v1/batch", body: large, headers: HTTPAnswer.basic("k1"))
        #expect(agentLarge.status == collectorLarge.status, "\(agentLarge.text) \(collectorLarge.text)")
        #expect(agentLarge.status == 200)
        agent.kill9()
        let rows = try Self.queued(store)
        #expect(rows.map(\.messageId) == ["big-number"], "nothing of a refused request is stored")
        #expect(rows.first?.payload.contains("1e300") == true)
    }

    @Test("a destination paused with ctl stays paused when the agent restarts, until ctl resume")
    func pauseOutlivesARestart() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (collector, collectorBase) = try await Self.diskCollector(in: directory)
        defer { collector.stop() }
        let store = directory + "/agent.sqlite"
        func destination() async throws -> [String: Any] {
            let status = try await DeadCommandTests.run(["ctl", "--db", store, "status", "--json"])
            return try #require((try DeadCommandTests.json(status.stdout)["destinations"] as? [[String: Any]])?.first, "\(status.stdout)")
        }

        let first = try RunningAgent(store: store, endpoints: [collectorBase], arguments: ["--policy", "count 1"], directory: directory)
        defer { first.stop() }
        _ = try await first.address()
        let paused = try await DeadCommandTests.run(["ctl", "--db", store, "pause", "default"])
        #expect(paused.status == 0, "\(paused.stderr)")
        #expect(try await first.terminate(within: .seconds(15)) == 0, "\(first.stderr.suffix(1000))")
        // No engine serves the store now: status reads the pause from the file.
        let offline = try await DeadCommandTests.run(["status", "--db", store, "--json"])
        #expect(try DeadCommandTests.json(offline.stdout)["pausedDestinations"] as? [String] == ["default"], "\(offline.stdout)")
        let text = try await DeadCommandTests.run(["status", "--db", store])
        #expect(text.stdout.contains("paused       default (by an operator"), "\(text.stdout)")

        let second = try RunningAgent(
            store: store, endpoints: [collectorBase], arguments: ["--policy", "count 1"], directory: directory, tag: "agent-2")
        defer { second.stop() }
        let base = try await second.address()
        let answer = try await HTTPAnswer.send("POST", base + "/v1/batch", body: Self.batch((0..<3).map { Self.event("paused-\($0)") }))
        #expect(answer.status == 200, "\(answer.text)")
        // The status is the engine's snapshot: wait (bounded) until it counts the 3 committed events.
        var held = try await destination()
        let counted = ContinuousClock.now + .seconds(10)
        while held["pending"] as? Int != 3, ContinuousClock.now < counted {
            try await Task.sleep(for: .milliseconds(50))
            held = try await destination()
        }
        #expect(held["paused"] as? Bool == true && held["pausedBy"] as? String == "operator", "\(held)")
        #expect(held["pending"] as? Int == 3, "\(held)")
        #expect(second.stderr.contains("still paused by an operator"), "the log says why it does not send: \(second.stderr.suffix(1000))")
        #expect(try await HTTPAnswer.send("GET", collectorBase + "/v1/stats").json["stored"] as? Int == 0)

        let resumed = try await DeadCommandTests.run(["ctl", "--db", store, "resume", "default"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let deadline = ContinuousClock.now + .seconds(30)
        var stored = 0
        while ContinuousClock.now < deadline {
            stored = try await HTTPAnswer.send("GET", collectorBase + "/v1/stats").json["stored"] as? Int ?? 0
            if stored == 3 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(stored == 3, "resume sends what waited")
        #expect(try await destination()["paused"] as? Bool == false)
    }

    @Test("/metrics counts what reached the collector; SIGTERM drains and exits 0")
    func metricsAndDrain() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (collector, collectorBase) = try await Self.diskCollector(in: directory)
        defer { collector.stop() }
        let store = directory + "/agent.sqlite"
        let agent = try RunningAgent(
            store: store, endpoints: [collectorBase, "second=" + Self.nowhere], arguments: ["--policy", "count 10 or 200ms"],
            directory: directory)
        defer { agent.stop() }
        let base = try await agent.address()
        for round in 0..<3 {
            let events = (0..<40).map { Self.event("metrics-\(round)-\($0)") }
            let answer = try await HTTPAnswer.send("POST", base + "/v1/b", body: Self.batch(events))
            #expect(answer.status == 200, "\(answer.text)")
        }
        // Wait (bounded) until the metrics show every event delivered to the collector.
        let deadline = ContinuousClock.now + .seconds(30)
        var text = ""
        while ContinuousClock.now < deadline {
            text = try await HTTPAnswer.send("GET", base + "/metrics").text
            if prometheusValue(text, "beacon_engine_delivered_events_total") == 120 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(prometheusValue(text, "beacon_engine_delivered_events_total") == 120, "\(text)")
        #expect(prometheusValue(text, "beacon_engine_pending_events") == 0)
        #expect(prometheusValue(text, "beacon_engine_pending_events", destination: "second") == 120)
        #expect(prometheusValue(text, "beacon_engine_delivered_events_total", destination: "second") ?? 0 == 0)
        #expect(text.contains("beacon_engine_batch_duration_seconds"), "\(text)")
        #expect(text.contains("beacon_agent_ingest_events_stored_total 120"), "the ingest's own metrics: \(text)")
        let stats = try await HTTPAnswer.send("GET", collectorBase + "/v1/stats")
        #expect(stats.json["stored"] as? Int == 120)

        let started = ContinuousClock.now
        let status = try await agent.terminate(within: .seconds(15))
        #expect(status == 0, "\(agent.stderr.suffix(2000))")
        #expect(ContinuousClock.now - started < .seconds(12), "the drain is bounded by the final flush (5 s)")
        // The 'second' destination could not be reached: its events stay queued for the next start.
        #expect(try Self.queued(store).count == 120)
    }

    @Test("SIGTERM in the middle of a long drain: the batch in flight, then at most the final flush's 5 s; the rest stays queued")
    func sigtermCutsALongDrain() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Each batch takes 1 s at the collector: the backlog of 30 batches would take 30 s.
        let collector = try RunningCollector(
            arguments: ["--db", directory + "/collector.sqlite", "--latency-ms", "1000"], directory: directory)
        defer { collector.stop() }
        let endpoint = try await collector.address()
        let store = directory + "/agent.sqlite"
        let track = try await BeaconProcess.run(["track", "--db", store, "--count", "3000"])
        #expect(track.status == 0, "\(track.stderr)")
        let agent = try RunningAgent(
            store: store, endpoints: [endpoint], arguments: ["--policy", "count 1", "--batch-size", "100"], directory: directory)
        defer { agent.stop() }
        _ = try await agent.address()
        // Once the collector has a batch, the drain is under way.
        let deadline = ContinuousClock.now + .seconds(30)
        while try await collector.stats()["received"] as? Int ?? 0 < 100, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(try await collector.stats()["received"] as? Int ?? 0 >= 100, "no drain under way to cut")

        let started = ContinuousClock.now
        let status = try await agent.terminate(within: .seconds(20))
        let took = ContinuousClock.now - started
        #expect(status == 0, "\(agent.stderr.suffix(2000))")
        // The batch in flight (1 s) and the final flush (5 s), with room for a loaded machine.
        #expect(took < .seconds(10), "the shutdown took \(took)")
        let received = try await collector.stats()["received"] as? Int ?? 0
        #expect(received < 3000, "the whole backlog went before the exit")
        // Nothing lost: what the store no longer holds reached the collector.
        let left = try Self.queued(store).count
        #expect(left > 0)
        #expect(3000 - left <= received, "\(left) left, \(received) received")
    }
}

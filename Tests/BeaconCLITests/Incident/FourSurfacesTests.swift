import BeaconTesting
import BeaconWire
import Foundation
import Testing

extension ProcessHeavy {
    /// The four places an operator reads an engine's figures, sampled at one moment: the
    /// console attached to it (100x30 in tmux), `ctl status --json`, `beacon status --json`
    /// and the agent's `/metrics`. Two destinations, one of them down (backing off), a dead
    /// letter, and more batches than the store's history keeps: every figure they share is
    /// one number (rates included: the screen's `in`, `out` and each destination's are the
    /// engine's, as `ctl status` gives them, not the monitor's own reading of the store).
    @Suite("four surfaces, one set of figures", .timeLimit(.minutes(3)))
    struct FourSurfacesTests {
        /// One `ctl status --json`, as JSON.
        static func status(_ store: String) async throws -> [String: Any] {
            let result = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }

        /// The figures a sample compares, read from `ctl status --json`.
        struct Figures: Equatable, CustomStringConvertible {
            var depth = -1, queueEvents = -1, deadLetters = -1, full = false
            var batchesSent = -1, retried = -1, deadLettered = -1, delivered = -1, accepted = -1
            var pending: [String: Int] = [:]
            var deliveredSinceStart: [String: Int] = [:]
            /// Events per second in and out, and each destination's (absent: unknown).
            var rateIn = -1.0, rateOut = -1.0
            var destinationRates: [String: Double] = [:]
            /// Each destination's share of failed requests and since when it fails (ISO 8601).
            var failureRates: [String: Double] = [:]
            var failingSince: [String: String] = [:]

            init(_ status: [String: Any]) {
                depth = status["depth"] as? Int ?? -1
                deadLetters = status["deadLetters"] as? Int ?? -1
                let queue = status["queue"] as? [String: Any] ?? [:]
                queueEvents = queue["events"] as? Int ?? -1
                full = queue["full"] as? Bool ?? false
                let totals = status["totals"] as? [String: Any] ?? [:]
                batchesSent = totals["batchesSent"] as? Int ?? -1
                retried = totals["retried"] as? Int ?? -1
                deadLettered = totals["deadLettered"] as? Int ?? -1
                delivered = totals["delivered"] as? Int ?? -1
                accepted = totals["accepted"] as? Int ?? -1
                let rates = status["rates"] as? [String: Any] ?? [:]
                rateIn = (rates["accepted"] as? NSNumber)?.doubleValue ?? -1
                rateOut = (rates["delivered"] as? NSNumber)?.doubleValue ?? -1
                for destination in status["destinations"] as? [[String: Any]] ?? [] {
                    guard let name = destination["name"] as? String else { continue }
                    destinationRates[name] = (destination["deliveryRate"] as? NSNumber)?.doubleValue
                    pending[name] = destination["pending"] as? Int ?? -1
                    deliveredSinceStart[name] = (destination["sinceStart"] as? [String: Any])?["delivered"] as? Int ?? -1
                    failureRates[name] = (destination["failureRate"] as? NSNumber)?.doubleValue
                    failingSince[name] = destination["failingSince"] as? String
                }
            }

            var description: String {
                "depth \(depth) (queue \(queueEvents)), dead letters \(deadLetters), full \(full), sent \(batchesSent) batches, "
                    + "retried \(retried), dead-lettered \(deadLettered), delivered \(delivered) of \(accepted), "
                    + "pending \(pending.sorted { $0.key < $1.key }), delivered since start \(deliveredSinceStart.sorted { $0.key < $1.key }), "
                    + "in \(rateIn)/s, out \(rateOut)/s, per destination \(destinationRates.sorted { $0.key < $1.key }), "
                    + "failure rates \(failureRates.sorted { $0.key < $1.key }), failing since \(failingSince.sorted { $0.key < $1.key })"
            }
        }

        /// The whole number after `label` on the screen's Outcomes rows (`sent 1,234 batches`).
        static func outcome(_ label: String, in screen: String) -> Int? {
            for line in screen.split(separator: "\n") {
                guard let range = line.range(of: " \(label) ") else { continue }
                let digits = line[range.upperBound...].prefix { $0.isNumber || $0 == "," }.filter(\.isNumber)
                if let number = Int(digits) { return number }
            }
            return nil
        }

        /// `M` of the Outcomes row's `delivered N of M events` (not the full-queue line's `300 of 300 events`).
        static func accepted(in screen: String) -> Int? {
            for line in screen.split(separator: "\n") {
                guard let range = line.range(of: " delivered ") else { continue }
                let rest = line[range.upperBound...]
                guard let of = rest.range(of: " of ") else { continue }
                let digits = rest[of.upperBound...].prefix { $0.isNumber || $0 == "," }.filter(\.isNumber)
                if let number = Int(digits) { return number }
            }
            return nil
        }

        /// What the screen says, as a list of disagreements with `figures` (empty: it agrees).
        static func disagreements(screen: String, _ figures: Figures) -> [String] {
            var found: [String] = []
            func check(_ what: String, _ shown: Int?, _ expected: Int) {
                if shown != expected { found.append("screen \(what) \(shown.map(String.init) ?? "absent"), ctl \(expected)") }
            }
            check("depth", DashboardText.depth(in: screen), figures.depth)
            check("sent batches", outcome("sent", in: screen), figures.batchesSent)
            check("retried", outcome("retried", in: screen), figures.retried)
            check("dead-lettered", outcome("dead-lettered", in: screen), figures.deadLettered)
            check("delivered", outcome("delivered", in: screen), figures.delivered)
            check("accepted", accepted(in: screen), figures.accepted)
            for (name, pending) in figures.pending {
                check("\(name) pending", DashboardText.destinationDepth(name, in: screen), pending)
            }
            // Rates as the screen rounds them: one decimal below 10/s, none up to 10k/s.
            func checkRate(_ what: String, _ shown: Double?, _ expected: Double?) {
                guard let expected, expected >= 0 else {
                    if shown != nil { found.append("screen \(what) \(shown ?? 0)/s, ctl unknown") }
                    return
                }
                let rounding = expected < 9.95 ? 0.05 : expected < 9_999.5 ? 0.5 : 50
                if let shown, abs(shown - expected) <= rounding + 1e-9 { return }
                found.append("screen \(what) \(shown.map { "\($0)/s" } ?? "absent"), ctl \(expected)/s")
            }
            checkRate("in", DashboardText.rate(of: "in", in: screen), figures.rateIn)
            checkRate("out", DashboardText.rate(of: "out", in: screen), figures.rateOut)
            for name in figures.pending.keys {
                checkRate("\(name) rate", DashboardText.destinationRate(name, in: screen), figures.destinationRates[name])
            }
            if screen.contains("QUEUE FULL") != figures.full { found.append("screen QUEUE FULL \(!figures.full), ctl \(figures.full)") }
            if !screen.contains("batches: this engine") { found.append("the Outcomes title does not say the batches are the engine's") }
            return found
        }

        @Test("a drain to two destinations, one down: the console, ctl status, beacon status and /metrics agree",
              .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"))
        func fourSurfacesAgree() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let store = directory + "/agent.sqlite"
            let main = try RunningCollector(arguments: ["--db", directory + "/main.sqlite", "--max-event-bytes", "2048"], directory: directory)
            defer { main.stop() }
            let backup = try RunningCollector(arguments: ["--down"], directory: directory)
            defer { backup.stop() }
            let agent = try RunningAgent(
                store: store, endpoints: ["main=" + (try await main.address()), "backup=" + (try await backup.address())],
                arguments: ["--policy", "count 10 or 100ms", "--batch-size", "10", "--max-queue-events", "10000"], directory: directory)
            defer { agent.stop() }
            let base = try await agent.address()

            // 2,000 events and a poison one main refuses for good: 200 batches and more to
            // main, more than the store's batch history keeps; backup is down throughout.
            for round in 0..<4 {
                let events = (0..<500).map { AgentCommandTests.event("four-\(round)-\($0)") }
                let answer = try await HTTPAnswer.send("POST", base + "/v1/batch", body: AgentCommandTests.batch(events))
                #expect(answer.status == 200, "\(answer.text)")
            }
            let blob = String(repeating: "x", count: 3000)
            let poison = try await HTTPAnswer.send(
                "POST", base + "/v1/batch",
                body: AgentCommandTests.batch([AgentCommandTests.event("four-poison", extra: #","context":{"blob":"\#(blob)"}"#)]))
            #expect(poison.status == 200, "\(poison.text)")
            let drained = try await BeaconTesting.eventually(within: .seconds(60), every: .milliseconds(200)) {
                let figures = Figures(try await Self.status(store))
                return figures.pending["main"] == 0 && figures.deadLetters == 1 && figures.pending["backup"] == 2_001
                    && figures.retried >= 1
            }
            let reached = Figures(try await Self.status(store))
            try #require(drained, "main drained, one dead letter, backup holding all: \(reached)")

            // The console opens after the drain: what it shows cannot come from batches it watched.
            let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 100, height: 30, directory: directory)
            defer { tmux.kill() }
            try await tmux.waitForScreen("the attached header") { DashboardText.header($0).contains("MONITOR (attached)") }

            // A sample counts when `ctl status` reads the same before and after it (backup's
            // retries move the figures now and then, further apart each time).
            var compared = false
            var last: [String] = []
            for _ in 0..<8 where !compared {
                let before = Figures(try await Self.status(store))
                var screen = ""
                // The console shows the engine's status within its interval (500 ms).
                _ = try? await tmux.waitForScreen("the screen at ctl status's figures", timeout: .seconds(3)) { text in
                    screen = text
                    return Self.disagreements(screen: text, before).isEmpty
                }
                let metrics = try await HTTPAnswer.send("GET", base + "/metrics").text
                let storeStatus = try await BeaconProcess.run(["status", "--db", store, "--json"])
                let after = Figures(try await Self.status(store))
                guard before == after else { continue }  // it moved during the sample: take another

                var found = Self.disagreements(screen: screen, before)
                func check(_ what: String, _ value: Double?, _ expected: Int) {
                    if value != Double(expected) { found.append("\(what) \(value.map { String($0) } ?? "absent"), ctl \(expected)") }
                }
                for name in ["main", "backup"] {
                    check("/metrics \(name) delivered", prometheusValue(metrics, "beacon_engine_delivered_events_total", destination: name),
                          before.deliveredSinceStart[name] ?? -1)
                    check("/metrics \(name) pending", prometheusValue(metrics, "beacon_engine_pending_events", destination: name),
                          before.pending[name] ?? -1)
                    // The observer's health figures: the share of failed requests, and since when.
                    let ratio = prometheusValue(metrics, "beacon_engine_request_failure_ratio", destination: name)
                    if ratio != (before.failureRates[name] ?? 0) {
                        found.append("/metrics \(name) failure ratio \(ratio.map { String($0) } ?? "absent"), ctl \(before.failureRates[name] ?? 0)")
                    }
                    let since = prometheusValue(metrics, "beacon_engine_failing_since_timestamp_seconds", destination: name)
                    let expected = before.failingSince[name].flatMap { Timestamp(iso8601: $0) }.map { Double($0.millisecondsSince1970) / 1000 } ?? 0
                    if let since, abs(since - expected) < 0.001 {} else {
                        found.append("/metrics \(name) failing since \(since.map { String($0) } ?? "absent"), ctl \(before.failingSince[name] ?? "none")")
                    }
                }
                check("/metrics dead letters", Self.plainValue(metrics, "beacon_engine_dead_letters"), before.deadLetters)
                check("/metrics queue events", Self.plainValue(metrics, "beacon_engine_queue_events"), before.queueEvents)
                check("/metrics queue full", Self.plainValue(metrics, "beacon_engine_queue_full"), before.full ? 1 : 0)
                let retriedMetric = ["main", "backup"].compactMap {
                    prometheusValue(metrics, "beacon_engine_retried_batches_total", destination: $0)
                }.reduce(0, +)
                check("/metrics retried (both destinations)", retriedMetric, before.retried)

                let json = (try? JSONSerialization.jsonObject(with: Data(storeStatus.stdout.utf8)) as? [String: Any]) ?? [:]
                check("beacon status depth", (json["depth"] as? Int).map(Double.init), before.depth)
                check("beacon status dead letters", (json["deadLetters"] as? Int).map(Double.init), before.deadLetters)
                for destination in json["destinations"] as? [[String: Any]] ?? [] {
                    guard let name = destination["name"] as? String else { continue }
                    // A new store: its lifetime is this engine's life.
                    check("beacon status \(name) delivered", (destination["delivered"] as? Int).map(Double.init),
                          before.deliveredSinceStart[name] ?? -1)
                    check("beacon status \(name) pending", (destination["pending"] as? Int).map(Double.init), before.pending[name] ?? -1)
                }
                if let engine = json["engine"] as? [String: Any] {
                    let embedded = Figures(engine)
                    if embedded != before { found.append("beacon status's engine: \(embedded); ctl: \(before)") }
                } else {
                    found.append("beacon status --json has no engine")
                }
                last = found
                compared = true
            }
            #expect(compared, "ctl status never read the same twice around a sample")
            #expect(last.isEmpty, "the surfaces disagree:\n\(last.joined(separator: "\n"))")
            // What the sample was about: main delivered all but the poison event, backup nothing.
            let figures = Figures(try await Self.status(store))
            #expect(figures.deliveredSinceStart["main"] == 2_000 && figures.deliveredSinceStart["backup"] == 0, "\(figures)")
            #expect(figures.batchesSent >= 200, "\(figures)")
            #expect(figures.failureRates["backup"] == 1 && figures.failingSince["backup"] != nil, "backup is down: \(figures)")
            #expect(figures.failingSince["main"] == nil, "main's last request went through: \(figures)")
            // What floods the queue: the console's `n` view lists the names ctl status gives,
            // with the same counts (every event was accepted before the sample).
            // The names and the disk are sampled on the engine's tick (1 s): wait for one
            // after the last event was accepted.
            var status: [String: Any] = [:]
            let sampled = try await BeaconTesting.eventually(within: .seconds(10), every: .milliseconds(100)) {
                status = try await Self.status(store)
                let counted = (status["eventNames"] as? [[String: Any]] ?? []).compactMap { $0["count"] as? Int }.reduce(0, +)
                return counted + (status["otherEventNames"] as? Int ?? 0) == 2_001
            }
            #expect(sampled, "the engine's tick counted every accepted name: \(status["eventNames"] ?? "none")")
            let names = (status["eventNames"] as? [[String: Any]] ?? []).compactMap { entry -> (String, Int)? in
                guard let name = entry["name"] as? String, let count = entry["count"] as? Int else { return nil }
                return (name, count)
            }
            // The disk under the store: the engine reads it, /metrics and ctl status give it.
            let disk = status["disk"] as? [String: Any] ?? [:]
            #expect((disk["storeBytes"] as? Int ?? 0) > 0 && (disk["freeBytes"] as? Int ?? 0) > 0, "\(disk)")
            let metricsNow = try await HTTPAnswer.send("GET", base + "/metrics").text
            #expect((Self.plainValue(metricsNow, "beacon_engine_store_bytes") ?? 0) > 0)
            #expect((Self.plainValue(metricsNow, "beacon_engine_disk_free_bytes") ?? 0) > 0)
            #expect(names.map(\.0) == ["Agent Test"], "every event of the sample has one name: \(status["eventNames"] ?? "none")")
            #expect(names.reduce(0) { $0 + $1.1 } + (status["otherEventNames"] as? Int ?? -1) == 2_001, "every accepted event counted once")
            try tmux.press("n")
            try await tmux.waitForScreen("the event names view with ctl status's counts") { screen in
                screen.contains("Event names") && names.allSatisfy { name, count in
                    screen.split(separator: "\n").contains { $0.hasPrefix(" \(name) ") && $0.contains(" \(count.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))) ") }
                }
            }
            try tmux.press("q")
            #expect(try await tmux.waitForExit() == 0)
        }

        /// A metric without dimensions (`beacon_engine_dead_letters 1`).
        static func plainValue(_ text: String, _ name: String) -> Double? {
            for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
                return line.split(separator: " ").last.flatMap { Double($0) }
            }
            return nil
        }
    }
}

import BeaconTesting
import Foundation
import Testing

extension ProcessHeavy {
    /// The incident of issue 42, driven as the on-call engineer drove it: two agents, each
    /// sending to two collectors, watched on one fleet screen (80x24 in tmux). The main
    /// collector is killed, the backup turns slow and flaky, one agent's queue fills to its
    /// bound, a poison event arrives, an operator flushes an offline engine, and an agent is
    /// killed with -9. At each step every figure the fleet row, the opened engine's screen,
    /// `ctl status --json`, `beacon status --json` and `/metrics` share is compared at one
    /// moment; and each finding of the issue has its check here.
    @Suite("an incident on a fleet of two agents", .timeLimit(.minutes(5)))
    struct FleetIncidentTmuxTests {
        /// One agent of the fleet.
        struct Agent {
            var name: String
            var store: String
            var base: String
            var process: RunningAgent
        }

        /// A fleet row's figures, read by the header's columns (`engine`, `state`, `depth`,
        /// `oldest`, `in/s`, `out/s`, `dead`, `failing`).
        struct Row: CustomStringConvertible {
            var state: String
            var depth: Int?
            var rateIn: Double?
            var rateOut: Double?
            var dead: Int?
            var oldest: String
            var failing: Set<String>
            var description: String { "state \(state), depth \(depth.map(String.init) ?? "?"), in \(rateIn.map { "\($0)" } ?? "?"), out \(rateOut.map { "\($0)" } ?? "?"), dead \(dead.map(String.init) ?? "?"), failing \(failing.sorted())" }

            init?(_ name: String, in screen: String) {
                guard let line = screen.split(separator: "\n").map(Array.init).first(where: { String($0.dropFirst(2)).hasPrefix(name + " ") }),
                    line.count >= 67
                else { return nil }
                func field(_ range: Range<Int>) -> String { String(line[range]).trimmingCharacters(in: .whitespaces) }
                state = field(15..<31)
                depth = Int(field(31..<39).filter(\.isNumber))
                oldest = field(39..<46)
                rateIn = DashboardText.rate(Substring(field(46..<54)))
                rateOut = DashboardText.rate(Substring(field(54..<62)))
                dead = Int(field(62..<67).filter(\.isNumber))
                failing = Set(field(67..<line.count).split(separator: ",").map(String.init).filter { !$0.isEmpty })
            }
        }

        /// What the fleet row says against `ctl status --json` (empty: it agrees).
        static func rowDisagreements(_ row: Row, _ status: [String: Any]) -> [String] {
            var found: [String] = []
            let figures = FourSurfacesTests.Figures(status)
            if row.depth != figures.depth { found.append("fleet depth \(row.depth ?? -1), ctl \(figures.depth)") }
            if row.dead != figures.deadLetters { found.append("fleet dead \(row.dead ?? -1), ctl \(figures.deadLetters)") }
            func near(_ shown: Double?, _ expected: Double) -> Bool {
                let rounding = expected < 9.95 ? 0.05 : expected < 9_999.5 ? 0.5 : 50
                return shown.map { abs($0 - expected) <= rounding + 1e-9 } ?? false
            }
            if !near(row.rateIn, figures.rateIn) { found.append("fleet in \(row.rateIn ?? -1)/s, ctl \(figures.rateIn)/s") }
            // Finding 3: out counts every destination's deliveries, not only events all are done with.
            let out = figures.destinationRates.values.reduce(0, +)
            if !near(row.rateOut, out) { found.append("fleet out \(row.rateOut ?? -1)/s, ctl's destinations \(out)/s") }
            let destinations = status["destinations"] as? [[String: Any]] ?? []
            let failing = Set(destinations.compactMap { destination -> String? in
                guard let name = destination["name"] as? String else { return nil }
                let state = destination["state"] as? String ?? ""
                let rate = (destination["failureRate"] as? NSNumber)?.doubleValue ?? 0
                let fails = destination["failingSince"] is String || destination["stalled"] as? Bool == true || rate >= 0.1
                    || state.hasPrefix("backing off") || state.hasPrefix("paused")
                return fails ? name : nil
            })
            if row.failing != failing { found.append("fleet failing \(row.failing.sorted()), ctl \(failing.sorted())") }
            if figures.full != (row.state == "QUEUE FULL") { found.append("fleet state \(row.state), ctl full \(figures.full)") }
            return found
        }

        /// Everything the surfaces share about `agent`, compared at a moment when `ctl status`
        /// reads the same before and after: the fleet row, the engine opened from it, `/metrics`
        /// and `beacon status`. Leaves the fleet list on the screen with `agent` selected.
        static func expectAgreement(
            _ step: String, agent: Agent, index: Int, tmux: TmuxSession, attempts: Int = 8
        ) async throws {
            var last: [String] = ["never read the same twice around a sample"]
            for _ in 0..<attempts {
                let before = try await FourSurfacesTests.status(agent.store)
                var found: [String] = []
                // The list, then the engine opened from it (Enter), then the list again (Esc).
                var list = ""
                _ = try? await tmux.waitForScreen("\(step): \(agent.name)'s row at ctl's figures", timeout: .seconds(3)) { screen in
                    list = screen
                    guard let row = Row(agent.name, in: screen) else { return false }
                    return rowDisagreements(row, before).isEmpty
                }
                if let row = Row(agent.name, in: list) { found += rowDisagreements(row, before) } else { found.append("no fleet row for \(agent.name)") }
                try tmux.press("Enter")
                var opened = ""
                _ = try? await tmux.waitForScreen("\(step): \(agent.name) opened at ctl's figures", timeout: .seconds(3)) { screen in
                    opened = screen
                    return screen.contains("engine \(index + 1) of 2: \(agent.name)")
                        && FourSurfacesTests.disagreements(screen: screen, FourSurfacesTests.Figures(before)).isEmpty
                }
                if opened.contains("engine \(index + 1) of 2: \(agent.name)") {
                    found += FourSurfacesTests.disagreements(screen: opened, FourSurfacesTests.Figures(before))
                } else {
                    found.append("\(agent.name) did not open: \(opened)")
                }
                try tmux.press("Escape")
                _ = try await tmux.waitForScreen("\(step): the list again") { $0.contains("2 engines") }
                let metrics = try await HTTPAnswer.send("GET", agent.base + "/metrics").text
                let storeStatus = try await BeaconProcess.run(["status", "--db", agent.store, "--json"])
                let after = try await FourSurfacesTests.status(agent.store)
                let figures = FourSurfacesTests.Figures(before)
                guard figures == FourSurfacesTests.Figures(after) else { continue }  // it moved during the sample
                func check(_ what: String, _ value: Double?, _ expected: Int) {
                    if value != Double(expected) { found.append("\(what) \(value.map { String($0) } ?? "absent"), ctl \(expected)") }
                }
                for name in ["main", "backup"] {
                    check("/metrics \(name) pending", prometheusValue(metrics, "beacon_engine_pending_events", destination: name), figures.pending[name] ?? -1)
                    check("/metrics \(name) delivered", prometheusValue(metrics, "beacon_engine_delivered_events_total", destination: name),
                          figures.deliveredSinceStart[name] ?? -1)
                }
                check("/metrics dead letters", FourSurfacesTests.plainValue(metrics, "beacon_engine_dead_letters"), figures.deadLetters)
                check("/metrics queue full", FourSurfacesTests.plainValue(metrics, "beacon_engine_queue_full"), figures.full ? 1 : 0)
                let totals = before["totals"] as? [String: Any] ?? [:]
                check("/metrics refused", FourSurfacesTests.plainValue(metrics, "beacon_engine_refused_events_total"), totals["refused"] as? Int ?? -1)
                let json = (try? JSONSerialization.jsonObject(with: Data(storeStatus.stdout.utf8)) as? [String: Any]) ?? [:]
                check("beacon status depth", (json["depth"] as? Int).map(Double.init), figures.depth)
                check("beacon status dead letters", (json["deadLetters"] as? Int).map(Double.init), figures.deadLetters)
                if let engine = json["engine"] as? [String: Any] {
                    if FourSurfacesTests.Figures(engine) != figures { found.append("beacon status's engine: \(FourSurfacesTests.Figures(engine)); ctl: \(figures)") }
                } else {
                    found.append("beacon status --json has no engine")
                }
                last = found
                if found.isEmpty { return }
            }
            Issue.record("\(step): the surfaces disagree on \(agent.name):\n\(last.joined(separator: "\n"))")
        }

        /// Polls `condition` (bounded).
        static func eventually(_ what: String, timeout: Duration = .seconds(40), _ condition: () async throws -> Bool) async throws {
            if try await BeaconTesting.eventually(within: timeout, every: .milliseconds(100), condition) { return }
            Issue.record("not within \(timeout): \(what)")
        }

        static func destination(_ name: String, _ status: [String: Any]) -> [String: Any] {
            (status["destinations"] as? [[String: Any]] ?? []).first { $0["name"] as? String == name } ?? [:]
        }

        @Test("main killed, backup slow and flaky, a full queue, poison, a refused flush, kill -9: every surface agrees at each step",
              .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"))
        func fleetIncident() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            var main = try RunningCollector(arguments: ["--db", directory + "/main.sqlite", "--max-event-bytes", "2048"], directory: directory)
            defer { main.stop() }
            var backup = try RunningCollector(arguments: ["--db", directory + "/backup.sqlite"], directory: directory)
            defer { backup.stop() }
            let mainBase = try await main.address(), backupBase = try await backup.address()
            let backupPort = try #require(Int(backupBase.split(separator: ":").last ?? ""))
            var agents: [Agent] = []
            for (name, bound) in [("a", "100000"), ("b", "300")] {
                let store = directory + "/\(name).sqlite"
                let process = try RunningAgent(
                    store: store, endpoints: ["main=" + mainBase, "backup=" + backupBase],
                    arguments: ["--policy", "count 10 or 100ms", "--batch-size", "10", "--max-queue-events", bound],
                    directory: directory, tag: name)
                agents.append(Agent(name: name, store: store, base: try await process.address(), process: process))
            }
            defer { for agent in agents { agent.process.stop() } }
            let tmux = try TmuxSession(
                [BeaconProcess.path, "monitor", "--db", agents[0].store, "--db", agents[1].store], width: 80, height: 24, directory: directory)
            defer { tmux.kill() }
            try await tmux.waitForScreen("both engines listed") { Row("a", in: $0) != nil && Row("b", in: $0) != nil }
            var sent = [0, 0]
            func post(_ index: Int, _ count: Int, extra: String = "") async throws -> HTTPAnswer {
                let events = (0..<count).map { AgentCommandTests.event("fleet-\(agents[index].name)-\(sent[index] + $0)", extra: extra) }
                let answer = try await HTTPAnswer.send("POST", agents[index].base + "/v1/batch", body: AgentCommandTests.batch(events))
                if answer.status == 200 { sent[index] += count }
                return answer
            }
            func select(_ index: Int) async throws {
                try tmux.press(index == 0 ? "Up" : "Down")
                try await tmux.waitForScreen("\(agents[index].name) selected") { $0.contains("▶ \(agents[index].name) ") }
            }

            // 1. Steady: both agents deliver to both collectors.
            for index in 0..<2 { #expect(try await post(index, 100).status == 200) }
            try await Self.eventually("both drained") {
                var drained = true
                for agent in agents { drained = try await FourSurfacesTests.status(agent.store)["depth"] as? Int == 0 && drained }
                return drained
            }
            for index in 0..<2 {
                try await select(index)
                try await Self.expectAgreement("steady", agent: agents[index], index: index, tmux: tmux)
            }

            // 2. main is killed: both back off on main and deliver to backup; the fleet row
            // says main is failing (finding 3) and the opened engine since when (finding 5).
            main.stop()
            for index in 0..<2 { #expect(try await post(index, 50).status == 200) }
            try await Self.eventually("both backing off on main, backup drained") {
                var ready = true
                for agent in agents {
                    let status = try await FourSurfacesTests.status(agent.store)
                    ready = ready && Self.destination("main", status)["failingSince"] is String
                        && Self.destination("backup", status)["pending"] as? Int == 0
                }
                return ready
            }
            for index in 0..<2 {
                try await select(index)
                try await Self.expectAgreement("main down", agent: agents[index], index: index, tmux: tmux)
            }
            let down = try tmux.capture()
            #expect(Row("a", in: down)?.failing == ["main"] && Row("b", in: down)?.failing == ["main"], "\(down)")
            #expect(down.contains("2 failing"), "\(down)")
            try tmux.press("Enter")
            try await tmux.waitForScreen("b opened") { $0.contains("engine 2 of 2: b") }
            try tmux.press("Tab")  // main, on the selected destination's detail line
            let since = try await tmux.waitForScreen("main's failing since on the opened engine") {
                $0.contains("▸ main: ") && $0.contains("failing since ")
            }
            // Finding 4: with main down nothing drains it: no drain is promised.
            #expect(!since.contains("drains in"), "\(since)")
            try tmux.press("Escape")

            // 3. b's queue fills to its bound: it refuses new events (503 queue_full) and
            // drops none; the fleet says QUEUE FULL and the opened engine what it refused (finding 1).
            var refused = 0
            for _ in 0..<10 {
                let answer = try await post(1, 50)
                if answer.status == 503 {
                    #expect(answer.errorCode == "queue_full", "\(answer.text)")
                    refused += 50
                    break
                }
            }
            #expect(refused == 50, "b never refused")
            try await tmux.waitForScreen("b QUEUE FULL in the fleet") { Row("b", in: $0)?.state == "QUEUE FULL" }
            try await select(1)
            try tmux.press("Enter")
            let full = try await tmux.waitForScreen("b's full queue line") { $0.contains("QUEUE FULL: new events refused (50 so far)") }
            #expect(!full.contains("oldest events dropped"), "\(full)")
            try tmux.press("Escape")
            _ = try await tmux.waitForScreen("the list") { $0.contains("2 engines") }
            try await Self.eventually("b's backup took b's 300") {
                Self.destination("backup", try await FourSurfacesTests.status(agents[1].store))["pending"] as? Int == 0
            }
            try await Self.expectAgreement("b full", agent: agents[1], index: 1, tmux: tmux)
            let bTotals = try await FourSurfacesTests.status(agents[1].store)["totals"] as? [String: Any] ?? [:]
            #expect(bTotals["refused"] as? Int == 50 && bTotals["dropped"] as? Int == 0, "\(bTotals)")

            // 4. backup turns slow and flaky (30 % failing, 1 s a request): it backs off
            // between its deliveries, its batches keep their size and no event is isolated (finding 8).
            backup.stop()
            backup = try RunningCollector(
                arguments: ["--db", directory + "/backup.sqlite", "--fail-rate", "0.3", "--latency-ms", "1000", "--seed", "42"],
                directory: directory, port: backupPort)
            _ = try await backup.address()
            #expect(try await post(0, 60).status == 200)
            try await Self.eventually("backup took a's 60 despite its failures", timeout: .seconds(60)) {
                Self.destination("backup", try await FourSurfacesTests.status(agents[0].store))["pending"] as? Int == 0
            }
            // Isolation splits a batch to find one event: none was split, none dead-lettered,
            // yet some requests failed and were retried.
            let flaky = try await FourSurfacesTests.status(agents[0].store)["totals"] as? [String: Any] ?? [:]
            #expect(flaky["split"] as? Int == 0 && flaky["deadLettered"] as? Int == 0, "no isolation: \(flaky)")
            #expect((flaky["retried"] as? Int ?? 0) > 0, "backup failed some requests: \(flaky)")
            let screenNow = try tmux.capture()
            #expect(!screenNow.contains("looking for the event"), "\(screenNow)")
            try await select(0)
            try await Self.expectAgreement("backup flaky", agent: agents[0], index: 0, tmux: tmux)

            // 5. main is back with its 2 KB limit, retry-now: a poison event bigger than it is
            // dead-lettered on a, the rest delivered, and every surface counts the letter.
            main = try RunningCollector(
                arguments: ["--db", directory + "/main.sqlite", "--max-event-bytes", "2048"], directory: directory,
                port: try #require(Int(mainBase.split(separator: ":").last ?? "")))
            _ = try await main.address()
            let blob = String(repeating: "x", count: 3000)
            #expect(try await post(0, 1, extra: #","context":{"blob":"\#(blob)"}"#).status == 200)
            for agent in agents { _ = try await BeaconProcess.run(["ctl", "--db", agent.store, "retry-now"]) }
            try await Self.eventually("a: main drained but the poison letter", timeout: .seconds(90)) {
                let status = try await FourSurfacesTests.status(agents[0].store)
                return status["deadLetters"] as? Int == 1 && Self.destination("main", status)["pending"] as? Int == 0
            }
            try await select(0)
            try await Self.expectAgreement("poison", agent: agents[0], index: 0, tmux: tmux)

            // 6. An operator takes a offline and presses f: the engine refuses, and the
            // screen says so with its reason, as `ctl flush` exits 1 (finding 2).
            #expect(try await BeaconProcess.run(["ctl", "--db", agents[0].store, "offline"]).status == 0)
            #expect(try await post(0, 5).status == 200)
            let ctlFlush = try await BeaconProcess.run(["ctl", "--db", agents[0].store, "flush"])
            #expect(ctlFlush.status == 1, "\(ctlFlush.stderr)")
            try tmux.press("Enter")
            try await tmux.waitForScreen("a opened, offline") { DashboardText.header($0).contains("OFFLINE") }
            try tmux.press("f")
            // Finding 9: the confirmation is whole at 80 columns, its keys included.
            try await tmux.waitForScreen("the flush confirmation, whole at 80 columns") {
                $0.contains("live engine: flush?") && $0.contains(" y yes  other key no")
            }
            try tmux.press("y")
            let refusal = try await tmux.waitForScreen("the refusal with the engine's reason") { $0.contains("refused: ") && $0.contains("offline") }
            #expect(!refusal.contains("flush requested"), "\(refusal)")
            try tmux.press("Escape")
            _ = try await tmux.waitForScreen("the list") { $0.contains("2 engines") }

            // 7. a is killed with -9: LOST with its time, its rates unknown, its destinations'
            // states unknown when opened (finding 7); b still agrees.
            agents[0].process.kill9()
            let lost = try await tmux.waitForScreen("a LOST", timeout: .seconds(20)) { Row("a", in: $0)?.state.hasPrefix("LOST") == true }
            let lostRow = try #require(Row("a", in: lost))
            #expect(lostRow.rateIn == nil && lostRow.rateOut == nil, "\(lostRow)")
            #expect(lost.contains("1 lost"), "\(lost)")
            // Nothing writes a's store now, and a fleet reads an unchanged store only every
            // 10 s: the age of its oldest pending event must still move, second by second.
            for round in 0..<3 {
                let before = try #require(Row("a", in: try tmux.capture())).oldest
                try await tmux.waitForScreen("a's oldest age moving on (\(round + 1) of 3)", timeout: .milliseconds(1_800)) {
                    Row("a", in: $0).map { $0.oldest != before } ?? false
                }
            }
            try await select(0)
            try tmux.press("Enter")
            let opened = try await tmux.waitForScreen("a opened, lost") { $0.contains("ENGINE LOST") }
            #expect(opened.contains("destinations 2 unknown (engine lost)"), "\(opened)")
            #expect(!opened.contains(" idle ") && !opened.contains("retry #"), "no state the engine cannot tell: \(opened)")
            // Since when, in time that moves on (not the store's last read).
            func lostLine(_ screen: String) -> String { screen.split(separator: "\n").first { $0.contains("ENGINE LOST at ") }.map(String.init) ?? "" }
            for round in 0..<3 {
                let before = lostLine(try tmux.capture())
                try await tmux.waitForScreen("the time since a was lost, moving (\(round + 1) of 3)", timeout: .milliseconds(1_800)) {
                    let line = lostLine($0)
                    return line != before && line.contains(" s ago)")
                }
            }
            try tmux.press("Escape")
            _ = try await tmux.waitForScreen("the list") { $0.contains("2 engines") }
            try await select(1)
            try await Self.expectAgreement("a lost", agent: agents[1], index: 1, tmux: tmux)

            // Finding 10: the legend says what the figures mean.
            try tmux.press("Enter")
            try tmux.press("?")
            try tmux.press("?")
            try await tmux.waitForScreen("the figures' legend") { $0.contains("Figures") }
            try tmux.press("Escape")
            try tmux.press("q")
            #expect(try await tmux.waitForExit() == 0)
        }
    }
}

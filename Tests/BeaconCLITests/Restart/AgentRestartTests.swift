import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ProcessHeavy {
    /// Issue 22, acceptance 1: an agent started on a store that already holds a backlog sends
    /// it by itself, within two of its policy's intervals, with no new event and no `ctl
    /// flush`; and an agent killed in the middle of a drain leaves a store from which the
    /// next one delivers the rest by itself. Before the fix, nothing left until a new event
    /// arrived.
    @Suite("beacon agent on a store an earlier life left", .timeLimit(.minutes(5)))
    struct AgentRestartTests {
        /// A policy, and how long the agent may take to deliver 500 waiting events: two of
        /// its intervals (a count policy that 500 events meet sends at once: 2 s).
        static let policies: [(policy: String?, within: Duration)] = [
            ("every 1s", .seconds(2)),
            ("count 100 or every 1s", .seconds(2)),
            ("count 10", .seconds(2)),
            (nil, .seconds(10)),  // the default: 100 events or 5 s
        ]

        /// What a loaded CI machine may add to a deadline.
        static let loadSlack: Duration = .seconds(8)

        /// The collector's stored count.
        static func stored(_ base: String) async throws -> Int {
            try await HTTPAnswer.send("GET", base + "/v1/stats").json["stored"] as? Int ?? -1
        }

        /// Polls the collector until it stored `count` events or `deadline` passed; the count.
        static func waitForStored(_ count: Int, at base: String, until deadline: ContinuousClock.Instant) async throws -> Int {
            var stored = try await Self.stored(base)
            while stored < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                stored = try await Self.stored(base)
            }
            return stored
        }

        @Test("500 queued events leave by themselves within two intervals", arguments: policies.indices)
        func backlogLeavesByItself(_ index: Int) async throws {
            let (policy, within) = Self.policies[index]
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let (collector, base) = try await AgentCommandTests.diskCollector(in: directory)
            defer { collector.stop() }
            let store = directory + "/agent.sqlite"
            let tracked = try await BeaconProcess.run(["track", "--db", store, "--count", "500"])
            #expect(tracked.status == 0, "\(tracked.stderr)")

            let agent = try RunningAgent(
                store: store, endpoints: [base], arguments: policy.map { ["--policy", $0] } ?? [], directory: directory)
            defer { agent.stop() }
            _ = try await agent.address()
            let ready = ContinuousClock.now
            // Two intervals, plus room for a debug build sharing two cores with the rest of
            // the suite (on a quiet machine it takes one interval and a few milliseconds).
            let stored = try await Self.waitForStored(500, at: base, until: ready + within + Self.loadSlack)
            let took = ContinuousClock.now - ready
            #expect(stored == 500, "\(policy ?? "default"): \(stored) of 500 delivered within \(within): \(agent.stderr.suffix(1500))")
            #expect(took <= within + Self.loadSlack, "\(policy ?? "default"): took \(took)")
            #expect(try await HTTPAnswer.send("GET", base + "/v1/stats").json["duplicates"] as? Int == 0)
        }

        @Test(
            "beacon demo on a store holding 500 events sends them by itself (no generator, every 1s)",
            .enabled(if: TmuxSession.isInstalled, "tmux is not installed"))
        func demoSendsTheBacklog() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = directory + "/demo.sqlite"
            #expect(try await BeaconProcess.run(["track", "--db", store, "--count", "500"]).status == 0)
            let session = try TmuxSession(
                [BeaconProcess.path, "demo", "--db", store, "--rate", "0", "--policy", "every 1s"], width: 80, height: 24,
                directory: directory)
            defer { session.kill() }
            // The demo's engine answers on its control socket; its queue empties with no new event.
            var depth = -1
            let deadline = ContinuousClock.now + .seconds(2) + Self.loadSlack + .seconds(20)  // the demo's start included
            while depth != 0, ContinuousClock.now < deadline {
                let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
                if status.status == 0, let json = try? DeadCommandTests.json(status.stdout) { depth = json["depth"] as? Int ?? -1 }
                if depth != 0 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(depth == 0, "the demo sent the backlog: \((try? session.capture()) ?? "")")
            try session.press("q")
        }

        @Test("killed with 20,000 events mid-drain, the next agent delivers the rest by itself, each once")
        func killedMidDrain() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let (collector, base) = try await AgentCommandTests.diskCollector(in: directory)
            defer { collector.stop() }
            let store = directory + "/agent.sqlite"
            let tracked = try await BeaconProcess.run(["track", "--db", store, "--count", "20000"])
            #expect(tracked.status == 0, "\(tracked.stderr)")

            // Small batches, so that the kill lands in the middle of the drain.
            let arguments = ["--policy", "every 1s", "--batch-size", "50", "--log-level", "warning"]
            let first = try RunningAgent(store: store, endpoints: [base], arguments: arguments, directory: directory, tag: "first")
            defer { first.stop() }
            _ = try await first.address()
            var atKill = 0
            let killBy = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < killBy {
                atKill = try await Self.stored(base)
                if atKill >= 2_000 { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            first.kill9()
            #expect(atKill >= 2_000 && atKill < 20_000, "the kill came mid-drain: \(atKill) stored")

            let second = try RunningAgent(store: store, endpoints: [base], arguments: arguments, directory: directory, tag: "second")
            defer { second.stop() }
            _ = try await second.address()
            let stored = try await Self.waitForStored(20_000, at: base, until: ContinuousClock.now + .seconds(60))
            #expect(stored == 20_000, "\(stored) of 20,000 after the restart: \(second.stderr.suffix(1500))")
            let stats = try await HTTPAnswer.send("GET", base + "/v1/stats").json
            // Resent after the kill: at most the batch in flight and the one delivered before it,
            // whose settle runs while the next is sent (2 × 50; the collector keeps one copy).
            #expect((stats["duplicates"] as? Int ?? .max) <= 100, "\(stats)")
            #expect(try await second.terminate(within: .seconds(15)) == 0, "\(second.stderr.suffix(1500))")
        }
    }
}

import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ProcessHeavy {
    /// Issue 22, findings 3 and 4: processes started at the same instant on one store, many
    /// rounds at small sizes. At most one engine serves a store; the losers exit with one
    /// clear line naming the holder; concurrent first opens all succeed; every printed id
    /// is stored exactly once; nothing is sent twice.
    @Suite("Processes racing on one store", .timeLimit(.minutes(6)))
    struct StoreRaceTests {
        /// The events table of a store.
        static func storedIds(_ store: String) throws -> [String] {
            var configuration = Configuration()
            configuration.readonly = true
            let database = try DatabaseQueue(path: store, configuration: configuration)
            return try database.read { db in try String.fetchAll(db, sql: "SELECT message_id FROM events ORDER BY seq") }
        }

        @Test("two agents started at once: one serves, the other exits 1 naming it (6 rounds)")
        func twoAgents() async throws {
            for round in 0..<6 {
                let directory = try BeaconProcess.temporaryDirectory()
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let store = directory + "/agent.sqlite"
                let arguments = ["--log-level", "warning"]
                let agents = [
                    try RunningAgent(store: store, endpoints: [AgentCommandTests.nowhere], arguments: arguments, directory: directory, tag: "a"),
                    try RunningAgent(store: store, endpoints: [AgentCommandTests.nowhere], arguments: arguments, directory: directory, tag: "b"),
                ]
                defer { for agent in agents { agent.stop() } }
                // Each either prints its address or exits; wait (bounded) until both have done one.
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline,
                    agents.contains(where: { $0.process.isRunning && !$0.stdout.contains("listening on") })
                {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let serving = agents.filter { $0.process.isRunning && $0.stdout.contains("listening on") }
                let refused = agents.filter { !$0.process.isRunning }
                #expect(serving.count == 1, "round \(round): \(serving.count) agents serve one store: \(agents.map { $0.stderr.suffix(500) })")
                #expect(refused.count == 1, "round \(round)")
                for loser in refused {
                    #expect(loser.process.terminationStatus == 1, "round \(round): \(loser.stderr)")
                    let lines = loser.stderr.split(separator: "\n")
                    let holder = serving.first.map { "process \($0.process.processIdentifier) (beacon agent)" } ?? "?"
                    #expect(lines.count == 1 && lines[0].contains("is served by \(holder)"), "round \(round): \(loser.stderr)")
                }
                // The one serving answers on its control socket.
                let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
                #expect(status.status == 0, "round \(round): \(status.stderr)")
            }
        }

        @Test("four track on a new store at once: all succeed, every printed id stored once (4 rounds)")
        func fourTracksOnANewStore() async throws {
            for round in 0..<4 {
                let directory = try BeaconProcess.temporaryDirectory()
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let store = directory + "/new.sqlite"
                let command = ["track", "--db", store, "--count", "50", "--print-ids"]
                async let first = BeaconProcess.run(command)
                async let second = BeaconProcess.run(command)
                async let third = BeaconProcess.run(command)
                async let fourth = BeaconProcess.run(command)
                let results = try await [first, second, third, fourth]
                for result in results {
                    #expect(result.status == 0, "round \(round): \(result.stderr)")
                }
                let printed = results.flatMap { $0.stdout.split(separator: "\n").map(String.init) }
                #expect(printed.count == 200 && Set(printed).count == 200, "round \(round): \(printed.count) ids printed")
                let stored = try Self.storedIds(store)
                #expect(stored.count == 200 && Set(stored) == Set(printed), "round \(round): \(stored.count) stored")
            }
        }

        @Test("two flush at once: nothing is sent twice; a refused one names the holder (3 rounds)")
        func twoFlushes() async throws {
            for round in 0..<3 {
                let directory = try BeaconProcess.temporaryDirectory()
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let (collector, base) = try await AgentCommandTests.diskCollector(in: directory)
                defer { collector.stop() }
                let store = directory + "/q.sqlite"
                #expect(try await BeaconProcess.run(["track", "--db", store, "--count", "3000"]).status == 0)
                let command = ["flush", "--db", store, "--endpoint", base, "--batch-size", "100"]
                async let first = BeaconProcess.run(command)
                async let second = BeaconProcess.run(command)
                let results = try await [first, second]
                #expect(results.contains { $0.status == 0 }, "round \(round): \(results.map(\.stderr))")
                for result in results where result.status != 0 {
                    #expect(result.status == 1 && result.stderr.contains("is served by process") && result.stderr.contains("beacon flush"),
                            "round \(round): \(result.stderr)")
                }
                let stats = try await HTTPAnswer.send("GET", base + "/v1/stats").json
                #expect(stats["stored"] as? Int == 3000, "round \(round): \(stats)")
                #expect(stats["duplicates"] as? Int == 0, "round \(round): sent twice: \(stats)")
            }
        }

        @Test("three dead retry of one id at once: it is queued once (3 rounds)")
        func threeRetriesOfOneLetter() async throws {
            for round in 0..<3 {
                let directory = try BeaconProcess.temporaryDirectory()
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let store = directory + "/q.sqlite"
                let strict = try RunningCollector(arguments: ["--max-event-bytes", "400"], directory: directory)
                defer { strict.stop() }
                let endpoint = try await strict.address()
                let blob = String(repeating: "x", count: 600)
                #expect(try await BeaconProcess.run(["track", "--db", store, "--name", "Large", "--prop", "blob=\(blob)"]).status == 0)
                #expect(try await BeaconProcess.run(["flush", "--db", store, "--endpoint", endpoint]).status == 0)
                let listed = try await BeaconProcess.run(["dead", "--db", store, "list", "--json"])
                let letters = try #require(try DeadCommandTests.json(listed.stdout)["deadLetters"] as? [[String: Any]])
                let id = try #require(letters.first?["id"] as? Int, "\(listed.stdout)")

                let command = ["dead", "--db", store, "retry", "\(id)"]
                async let first = BeaconProcess.run(command)
                async let second = BeaconProcess.run(command)
                async let third = BeaconProcess.run(command)
                let results = try await [first, second, third]
                let retried = results.filter { $0.status == 0 }
                #expect(retried.count == 1, "round \(round): \(results.map { "\($0.status) \($0.stdout) \($0.stderr)" })")
                for result in results where result.status != 0 {
                    #expect(result.status == 1 && result.stderr.contains("no dead letter with id \(id)"), "round \(round): \(result.stderr)")
                }
                #expect(try Self.storedIds(store).count == 1, "round \(round): the letter is queued once")
            }
        }

        @Test("track beside a running agent: every printed id reaches the collector once")
        func trackBesideAnAgent() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let (collector, base) = try await AgentCommandTests.diskCollector(in: directory)
            defer { collector.stop() }
            let store = directory + "/agent.sqlite"
            let agent = try RunningAgent(
                store: store, endpoints: [base], arguments: ["--policy", "count 50 or every 1s", "--log-level", "warning"],
                directory: directory)
            defer { agent.stop() }
            _ = try await agent.address()
            let command = ["track", "--db", store, "--count", "300", "--print-ids"]
            async let first = BeaconProcess.run(command)
            async let second = BeaconProcess.run(command)
            let results = try await [first, second]
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            let printed = Set(results.flatMap { $0.stdout.split(separator: "\n").map(String.init) })
            #expect(printed.count == 600)
            let stored = try await AgentRestartTests.waitForStored(600, at: base, until: ContinuousClock.now + .seconds(20))
            #expect(stored == 600, "the agent sends what another process queued: \(agent.stderr.suffix(1000))")
            let stats = try await HTTPAnswer.send("GET", base + "/v1/stats").json
            #expect(stats["duplicates"] as? Int == 0, "\(stats)")
        }
    }
}

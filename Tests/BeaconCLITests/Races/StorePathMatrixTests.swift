import BeaconTesting
import Foundation
import Testing

extension ProcessHeavy {
    /// Issue 45, finding 4: every path SQLite accepts for a store can be served. A folder
    /// with spaces and non-ASCII names, a 200-byte file name (too long for a Unix socket's
    /// name even through its directory), the longest path SQLite opens (504 bytes), both:
    /// the agent serves each, and ctl, status, dead and the monitor reach it.
    @Suite("Every store path SQLite accepts is served", .timeLimit(.minutes(4)))
    struct StorePathMatrixTests {
        /// `directory` + folders (of `folder`'s name, then shorter) until the path of
        /// `name` in them is `total` bytes long.
        static func path(in directory: String, folder: String, name: String, total: Int) throws -> String {
            var path = folder.isEmpty || total > 0 ? directory : directory + "/" + folder
            while path.utf8.count + 1 + name.utf8.count < total {
                let room = total - path.utf8.count - 1 - name.utf8.count - 1
                let part = room >= folder.utf8.count ? folder : String(repeating: "f", count: max(1, room))
                path += "/" + part
            }
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path + "/" + name
        }

        static func json(_ result: BeaconProcess.Result) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }

        @Test("spaces and non-ASCII, a 200-byte name, a 504-byte path: agent, ctl, status, dead and monitor work on each",
              .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal part needs it"))
        func matrix() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let longName = String(repeating: "n", count: 193) + ".sqlite"
            let stores = [
                ("spaces and non-ASCII", try Self.path(in: directory, folder: "a folder with spaces/ünïcødé ✓", name: "my store.sqlite", total: 0)),
                ("a 200-byte name", try Self.path(in: directory, folder: "", name: longName, total: 0)),
                ("a 504-byte path", try Self.path(in: directory, folder: "deep folder ü", name: "q.sqlite", total: 504)),
                ("a 504-byte path and a 200-byte name", try Self.path(in: directory, folder: "déep", name: longName, total: 504)),
            ]
            for (way, store) in stores {
                #expect(store.utf8.count <= 504, "\(way): \(store.utf8.count) bytes")
                let agent = try RunningAgent(store: store, endpoints: [AgentCommandTests.nowhere], directory: directory, tag: "agent")
                defer { agent.stop() }
                let base: String
                do { base = try await agent.address() } catch {
                    Issue.record("\(way): the agent did not start: \(agent.stderr)")
                    continue
                }
                let events = (0..<3).map { AgentCommandTests.event("matrix-\($0)") }
                let posted = try await HTTPAnswer.send("POST", base + "/v1/batch", body: AgentCommandTests.batch(events))
                #expect(posted.status == 200, "\(way): \(posted.text)")

                let ctl = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
                #expect(ctl.status == 0 && Self.json(ctl)["depth"] as? Int == 3, "\(way): ctl status: \(ctl.stderr)")
                let offline = try await BeaconProcess.run(["ctl", "--db", store, "offline"])
                #expect(offline.status == 0, "\(way): ctl offline: \(offline.stderr)")
                let status = try await BeaconProcess.run(["status", "--db", store, "--json"])
                #expect(status.status == 0, "\(way): status: \(status.stderr)")
                let engine = Self.json(status)["engine"] as? [String: Any]
                #expect(engine?["offline"] as? Bool == true, "\(way): status reaches the engine: \(status.stdout.prefix(300))")
                let dead = try await BeaconProcess.run(["dead", "list", "--db", store, "--json"])
                #expect(dead.status == 0, "\(way): dead list: \(dead.stderr)")

                let tmux = try TmuxSession([BeaconProcess.path, "monitor", "--db", store], width: 80, height: 24, directory: directory)
                defer { tmux.kill() }
                try await tmux.waitForScreen("\(way): the monitor attached") { DashboardText.header($0).contains("MONITOR (attached)") }
                try tmux.press("q")
                #expect(try await tmux.waitForExit() == 0, "\(way)")
            }
        }

        @Test("simulate in a folder with spaces and non-ASCII names whose stores' paths are near SQLite's limit")
        func simulateInADeepFolder() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let scenario = directory + "/tiny.json"
            try """
            { "name": "tiny", "seed": 1, "engine": { "policy": "count 20 or every 200ms", "batchSize": 20 },
              "collectors": [ { "name": "main" } ],
              "steps": [ { "name": "on", "seconds": 0.6, "rate": 50 }, { "name": "crash", "seconds": 0.4, "kill": true },
                         { "name": "after", "seconds": 0.4, "rate": 20 } ] }
            """.write(toFile: scenario, atomically: true, encoding: .utf8)
            // The run's longest store path, `RUN/collector-main.sqlite-wal`, comes to 500 bytes.
            let run = try Self.path(in: directory, folder: "déep folder ü ✓", name: "run", total: 500 - "/collector-main.sqlite-wal".utf8.count)
            let result = try await BeaconProcess.run(["simulate", scenario, "--json", "--dir", run], stdinBytes: nil, limit: .seconds(120))
            #expect(result.status == 0, "\(result.stderr.suffix(1500))")
            #expect(FileManager.default.fileExists(atPath: run + "/engine.sqlite"))
        }
    }
}

import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Where the real Segment client library can be run from, if anywhere.
enum SegmentPython {
    /// `python3` from `PATH`, when `import segment.analytics` works with it.
    static let interpreter: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/python3" }
        guard let python = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        guard let pid = try? spawn(python, ["-c", "import segment.analytics"], streams: { actions in
            for target in [Int32(0), 1, 2] {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }) else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status == 0 ? python : nil
    }()

    /// Under CI the library must be there (`.ci/run` installs it): the test fails instead of skipping.
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The client script beside this file.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/segment_client.py").path
}

extension ProcessHeavy {
    /// Acceptance: a real Segment client library (segment-analytics-python) sends 5,000
    /// events to `beacon agent`, which is killed with SIGKILL mid-stream and restarted on the
    /// same port and store. Every event the client got a 200 for reaches a real collector
    /// exactly once, and the client reports no lost events.
    @Suite("beacon agent with a real Segment client", .timeLimit(.minutes(3)))
    struct SegmentClientTests {
        static let total = 5_000

        /// The store's lifetime count of committed events (`queue_state.committed`).
        static func committed(_ store: String) -> Int {
            var configuration = Configuration()
            configuration.readonly = true
            guard let database = try? DatabaseQueue(path: store, configuration: configuration) else { return 0 }  // not created yet
            return (try? database.read { db in try Int.fetchOne(db, sql: "SELECT committed FROM queue_state WHERE id = 1") ?? 0 }) ?? 0
        }

        /// The collector's stored messageIds.
        static func stored(_ database: String) throws -> [String] {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: database, configuration: configuration)
            return try queue.read { db in try String.fetchAll(db, sql: "SELECT message_id FROM collector_events") }
        }

        @Test(
            "5,000 events from segment-analytics-python through a kill -9 and a restart: every acknowledged one stored once, none lost",
            .enabled(if: SegmentPython.interpreter != nil || SegmentPython.isCI, "python3 with segment-analytics-python is not installed"))
        func killedMidStream() async throws {
            let python = try #require(
                SegmentPython.interpreter,
                "python3 with segment-analytics-python is required under CI (pip3 install segment-analytics-python)")
            let started = ContinuousClock.now
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let collectorDatabase = directory + "/collector.sqlite"
            let collector = try RunningCollector(arguments: ["--db", collectorDatabase], directory: directory)
            defer { collector.stop() }
            let collectorBase = try await collector.address()
            let store = directory + "/agent.sqlite"
            let agentArguments = ["--write-key", "wk-segment", "--policy", "count 100 or 100ms", "--batch-size", "500", "--log-level", "warning"]
            let first = try RunningAgent(store: store, endpoints: [collectorBase], arguments: agentArguments, directory: directory, tag: "agent1")
            defer { first.stop() }
            let port = try await first.port()

            let client = ChildProcess()
            let clientOutput = directory + "/client.out"
            _ = FileManager.default.createFile(atPath: clientOutput, contents: nil)
            _ = FileManager.default.createFile(atPath: directory + "/client.err", contents: nil)
            client.executableURL = URL(fileURLWithPath: python)
            // About 0.5 ms between events: a stream of a few seconds, so the kill lands in the middle.
            client.arguments = [SegmentPython.script, "http://127.0.0.1:\(port)", "wk-segment", "\(Self.total)", "0.0005"]
            client.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: clientOutput))
            client.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/client.err"))
            try client.run()
            defer { if client.isRunning { kill(client.processIdentifier, SIGKILL); client.waitUntilExit() } }

            // Kill the agent once about 2,000 events reached its store.
            var atKill = 0
            let killDeadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < killDeadline {
                atKill = Self.committed(store)
                if atKill >= 2_000 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            first.kill9()
            #expect(atKill >= 2_000, "the client sent too slowly: \(atKill) events in 30 s")
            #expect(atKill < Self.total, "the kill came after the stream ended (\(atKill))")
            let second = try RunningAgent(
                store: store, endpoints: [collectorBase], arguments: agentArguments + ["--listen", "127.0.0.1:\(port)"],
                directory: directory, tag: "agent2")
            defer { second.stop() }
            _ = try await second.address()

            // The client flushes and shuts down by itself, riding out the restart with its retries.
            let clientDeadline = ContinuousClock.now + .seconds(60)
            while client.isRunning && ContinuousClock.now < clientDeadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!client.isRunning, "the Segment client did not finish within 60 s")
            #expect(client.terminationStatus == 0, "\((try? String(contentsOfFile: directory + "/client.err", encoding: .utf8)) ?? "")")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: clientOutput))) as? [String: Any])
            #expect(report["failedEvents"] as? Int == 0, "the client lost events: \(report["errors"] ?? "")")
            #expect((report["errors"] as? [String])?.isEmpty == true)
            let acknowledged = Set(try #require(report["acknowledgedIds"] as? [String]))
            #expect(acknowledged.count == Self.total, "every event was acknowledged in the end")

            // Every acknowledged event reaches the collector, once.
            var stored: [String] = []
            let storeDeadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < storeDeadline {
                stored = try Self.stored(collectorDatabase)
                if acknowledged.isSubset(of: stored) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let storedSet = Set(stored)
            #expect(stored.count == storedSet.count, "a messageId stored twice")
            #expect(acknowledged.subtracting(storedSet).isEmpty, "acknowledged but not at the collector: \(acknowledged.subtracting(storedSet).count)")
            #expect(storedSet.isSubset(of: Set((0..<Self.total).map { "seg-\($0)" })))
            #expect(Self.committed(store) >= Self.total, "the agent committed every event (resends after the kill count twice)")
            #expect(ContinuousClock.now - started < .seconds(90), "the acceptance run took \(ContinuousClock.now - started)")
            let status = try await second.terminate(within: .seconds(15))
            #expect(status == 0, "\(second.stderr.suffix(2000))")
        }
    }
}

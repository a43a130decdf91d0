import BeaconTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ProcessHeavy {
    /// Issue 45, finding 5: interrupting `simulate` while it kills and restarts its engine
    /// left an orphaned `beacon agent` (6 of 6 runs interrupted as the engine restarted):
    /// the new agent counted for the interrupt only once it listened. 20 rounds, SIGINT and
    /// SIGTERM in turn, at moments spread over every step: no process of the run survives.
    @Suite("Interrupting simulate leaves no process behind", .timeLimit(.minutes(6)))
    struct SimulateInterruptTests {
        /// The processes whose command line names `directory` (the run's agents and monitor).
        static func processes(naming directory: String) -> [pid_t] {
            let own = getpid()
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { Int32($0) }.filter { pid in
                guard pid != own, let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
                return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(directory)
            }
        }

        @Test("20 rounds interrupted at moments over a run that kills and restarts its engine twice")
        func noOrphanAfterAnInterrupt() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let scenario = directory + "/restarts.json"
            try """
            { "name": "restarts", "seed": 3, "engine": { "policy": "count 20 or every 200ms", "batchSize": 20 },
              "collectors": [ { "name": "main" } ],
              "steps": [ { "name": "on", "seconds": 0.3, "rate": 50 }, { "name": "crash", "seconds": 0.3, "kill": true },
                         { "name": "again", "seconds": 0.3, "rate": 50 }, { "name": "crash2", "seconds": 0.3, "kill": true },
                         { "name": "after", "seconds": 0.3, "rate": 20 } ] }
            """.write(toFile: scenario, atomically: true, encoding: .utf8)
            var survivors: [String] = []
            for round in 0..<20 {
                let run = directory + "/run-\(round)"
                let simulate = ChildProcess()
                simulate.executableURL = URL(fileURLWithPath: BeaconProcess.path)
                simulate.arguments = ["simulate", scenario, "--dir", run]
                simulate.standardOutput = FileHandle.nullDevice
                simulate.standardError = FileHandle.nullDevice
                try simulate.run()
                // 0.1 s to 2.0 s: through the start, both kills and their restarts, and the drain.
                try await Task.sleep(for: .milliseconds(100 + round * 100))
                kill(simulate.processIdentifier, round % 2 == 0 ? SIGTERM : SIGINT)
                let ended = try await BeaconTesting.eventually(within: .seconds(30), every: .milliseconds(20)) { !simulate.isRunning }
                #expect(ended, "round \(round): simulate did not end on its interrupt")
                if !ended { kill(simulate.processIdentifier, SIGKILL) }
                let left = Self.processes(naming: run)
                if !left.isEmpty {
                    survivors.append("round \(round): \(left)")
                    for pid in left { kill(pid, SIGKILL) }
                }
            }
            #expect(survivors.isEmpty, "processes of interrupted runs survived: \(survivors)")
        }
    }
}

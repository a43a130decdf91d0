import BeaconTesting
import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `beacon dead export` when its output cannot be written (issue 22, F8): the export must
/// not be lost in silence. `/dev/full` fails every write with ENOSPC; the command must
/// say so in one line on stderr and exit 1, on the store directly and through a serving
/// engine, to `--out` and to stdout.
@Suite("beacon dead export: failed writes", .timeLimit(.minutes(2)))
struct DeadExportWriteFailureTests {
    /// A store with two dead letters.
    static func storeWithDeadLetters(in directory: String) async throws -> String {
        let db = directory + "/q.sqlite"
        let tracked = try await BeaconProcess.run(["track", "--db", db, "--count", "1"])
        #expect(tracked.status == 0, "\(tracked.stderr)")
        try await StoreFile.open(db).write { db in
            for seq in 1...2 {
                try db.execute(sql: """
                    INSERT INTO dead_letters (seq, destination, message_id, name, payload, reason, status, failed_at)
                    VALUES (?, 'default', ?, 'Lost', CAST('{"event":"Lost"}' AS BLOB), 'HTTP 400: refused', 400, 1764000000000)
                    """, arguments: [seq + 100, "m-\(seq)"])
            }
        }
        return db
    }

    static func expectOneLineFailure(_ result: BeaconProcess.Result, _ context: String) {
        #expect(!result.signalled, "\(context): killed by signal \(result.status)")
        #expect(result.status == 1, "\(context): exit \(result.status), stderr \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(context): one line on stderr, got \(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(context): the cause is named: \(result.stderr)")
    }

    @Test("--out /dev/full on a store no engine serves: one line, exit 1")
    func outToAFullDeviceOnTheStore() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try await Self.storeWithDeadLetters(in: directory)
        let result = try await BeaconProcess.run(["dead", "--db", db, "export", "--out", "/dev/full"])
        Self.expectOneLineFailure(result, "store, --out /dev/full")
        #expect(result.stderr.contains("/dev/full"), "the file is named: \(result.stderr)")
        #expect(!result.stdout.contains("exported"), "no success line: \(result.stdout)")
    }

    @Test("--out /dev/full through a serving engine: one line, exit 1")
    func outToAFullDeviceThroughTheEngine() async throws {
        let served = try await CtlCommandTests.Served.start()
        try await served.engine.tracker.track("Lost", anonymousId: "x").committed()
        // The serving engine writes too (its batcher registers the destination as it
        // starts): wait for its transaction rather than fail on SQLITE_BUSY.
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(10)
        try await DatabaseQueue(path: served.store, configuration: configuration).write { db in
            try db.execute(sql: """
                INSERT INTO dead_letters (seq, destination, message_id, name, payload, reason, status, failed_at)
                VALUES (900, 'default', 'm-900', 'Lost', CAST('{"event":"Lost"}' AS BLOB), 'HTTP 400: refused', 400, 1764000000000)
                """)
        }
        let listed = try await BeaconProcess.run(["dead", "--db", served.store, "list", "--json"])
        #expect(listed.stdout.contains("m-900"), "the engine serves the letter: \(listed.stdout) \(listed.stderr)")
        let result = try await BeaconProcess.run(["dead", "--db", served.store, "export", "--out", "/dev/full"])
        Self.expectOneLineFailure(result, "engine, --out /dev/full")
        #expect(!result.stdout.contains("exported"), "no success line: \(result.stdout)")
        try await served.stop()
    }

    @Test("stdout on /dev/full: one line, exit 1")
    func stdoutToAFullDevice() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try await Self.storeWithDeadLetters(in: directory)
        let errorPath = directory + "/stderr"
        let status = try await offThePool { () throws -> Int32 in
            let pid = try spawn(BeaconProcess.path, ["dead", "--db", db, "export"]) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/full", O_WRONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return status
        }
        let stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        let result = BeaconProcess.Result(
            status: (status & 0x7f) != 0 ? status & 0x7f : (status >> 8) & 0xff, signalled: (status & 0x7f) != 0,
            stdout: "", stderr: stderr)
        Self.expectOneLineFailure(result, "stdout on /dev/full")
    }

    @Test("--out FILE still replaces FILE whole; a directory that does not exist is refused before anything")
    func outToARegularFile() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try await Self.storeWithDeadLetters(in: directory)
        let out = directory + "/dead.ndjson"
        try Data("old content that must go\n".utf8).write(to: URL(fileURLWithPath: out))
        let result = try await BeaconProcess.run(["dead", "--db", db, "export", "--out", out])
        #expect(result.status == 0 && result.stdout == "exported 2 dead letters to \(out)\n", "\(result.stdout) \(result.stderr)")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.contains("\"Lost\"") }, "\(lines)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".dead.ndjson") }
        #expect(leftovers.isEmpty, "no temporary file left behind: \(leftovers)")

        let missing = directory + "/no-such-dir/dead.ndjson"
        let refused = try await BeaconProcess.run(["dead", "--db", db, "export", "--out", missing])
        #expect(refused.status == 2 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains(directory + "/no-such-dir"), "\(refused.stderr)")
    }
}

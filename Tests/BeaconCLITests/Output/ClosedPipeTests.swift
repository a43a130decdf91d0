import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Commands whose stdout is a pipe its reader closed (`beacon status | head -1`). The
/// reader took what it wanted: the command finishes its work, says nothing and exits as
/// it would have. Before, `track --count 10000 --print-ids | head -1` died of SIGPIPE
/// at its second id with most events not stored, and `status | head -c 5` said "cannot
/// write to standard output: Broken pipe", exit 1. A full disk stays a failure
/// (`DeadExportWriteFailureTests`).
@Suite("stdout closed by its reader", .timeLimit(.minutes(2)))
struct ClosedPipeTests {
    /// What a child did with its stdout a pipe: the lines the test read before closing
    /// the read end, its exit and its stderr.
    struct Run {
        var linesRead: [String]
        var status: Int32
        var signalled: Bool
        var stderr: String
    }

    /// Runs `beacon arguments` with stdout a pipe; reads `lines` lines from it (none:
    /// the read end is closed before the child starts), closes it and waits for the child.
    /// With `stdoutFile`, stdout is that file instead.
    static func run(
        _ arguments: [String], readingLines lines: Int, stdoutFile: String? = nil, in directory: String
    ) async throws -> Run {
        let errorPath = directory + "/stderr-\(UUID().uuidString)"
        return try await offThePool { () throws -> Run in
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let (readEnd, writeEnd) = (ends[0], ends[1])
            // Not in other tests' children (their spawns close every descriptor from 3 up).
            _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
            if lines == 0 { close(readEnd) }
            let pid: pid_t
            do {
                pid = try spawn(BeaconProcess.path, arguments) { actions in
                    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                    if let stdoutFile {
                        posix_spawn_file_actions_addopen(&actions, 1, stdoutFile, O_WRONLY, 0)
                    } else {
                        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
                    }
                    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                }
            } catch {
                close(writeEnd)
                if lines > 0 { close(readEnd) }
                throw error
            }
            close(writeEnd)
            var read: [String] = []
            if lines > 0 {
                var pending: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                reading: while read.count < lines {
                    let count = chunk.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    pending += chunk[..<count]
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        read.append(String(decoding: pending[..<newline], as: UTF8.self))
                        pending.removeSubrange(...newline)
                        if read.count == lines { break reading }
                    }
                }
                close(readEnd)
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let signalled = (status & 0x7f) != 0
            let stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            return Run(
                linesRead: read, status: signalled ? status & 0x7f : (status >> 8) & 0xff, signalled: signalled,
                stderr: stderr)
        }
    }

    static func expectQuiet(_ run: Run, _ context: String) {
        #expect(!run.signalled, "\(context): killed by signal \(run.status)")
        #expect(run.status == 0, "\(context): exit \(run.status), stderr \(run.stderr)")
        #expect(run.stderr.isEmpty, "\(context): nothing said on stderr, got \(run.stderr)")
    }

    @Test("track --print-ids read for one line stores every event and exits 0")
    func trackStoresEverythingAfterItsReaderLeft() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = directory + "/q.sqlite"
        // 10,000 ids are about 370 KB: more than a pipe holds, so the reader's close
        // comes while the command still has ids to print.
        let run = try await Self.run(
            ["track", "--db", db, "--count", "10000", "--print-ids", "--name", "Piped"], readingLines: 1, in: directory)
        Self.expectQuiet(run, "track --print-ids")
        #expect(run.linesRead.count == 1 && run.linesRead[0].count == 36, "one id read: \(run.linesRead)")
        let status = try await BeaconProcess.run(["status", "--db", db, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(object?["depth"] as? Int == 10000, "every event is stored: \(status.stdout) \(status.stderr)")
    }

    @Test("status, dead export and --help to a pipe already closed exit 0 without a word")
    func commandsWhoseReaderIsGone() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try await DeadExportWriteFailureTests.storeWithDeadLetters(in: directory)
        for arguments in [["status", "--db", db], ["status", "--db", db, "--json"], ["dead", "--db", db, "export"], ["--help"]] {
            let run = try await Self.run(arguments, readingLines: 0, in: directory)
            Self.expectQuiet(run, arguments.joined(separator: " "))
        }
        // Output lost for another reason is still a failure: stdout on /dev/full.
        let full = try await Self.run(["status", "--db", db], readingLines: 0, stdoutFile: "/dev/full", in: directory)
        #expect(!full.signalled && full.status == 1, "exit \(full.status): \(full.stderr)")
        #expect(full.stderr == "beacon: cannot write to standard output: No space left on device\n", "\(full.stderr)")
    }

    /// `ctl watch` prints until interrupted: once its output is lost it must stop, not
    /// poll the engine for ever writing nowhere.
    @Test("ctl watch stops when its reader leaves (exit 0) and when stdout fails (exit 1)")
    func watchStopsWithItsOutput() async throws {
        let served = try await CtlCommandTests.Served.start()
        let watch = ["ctl", "--db", served.store, "watch", "--interval-ms", "100"]
        let run = try await Self.run(watch, readingLines: 2, in: served.directory)
        Self.expectQuiet(run, "ctl watch | head -2")
        #expect(run.linesRead.count == 2 && run.linesRead.allSatisfy { $0.hasPrefix("{") }, "\(run.linesRead)")
        let full = try await Self.run(watch, readingLines: 0, stdoutFile: "/dev/full", in: served.directory)
        #expect(!full.signalled && full.status == 1, "exit \(full.status): \(full.stderr)")
        #expect(full.stderr == "beacon: cannot write to standard output: No space left on device\n", "\(full.stderr)")
        try await served.stop()
    }
}

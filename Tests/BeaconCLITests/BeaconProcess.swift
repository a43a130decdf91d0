import BeaconTesting
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs the `beacon` executable built next to the tests.
enum BeaconProcess {
    /// The executable: beside the test bundle (`.build/<config>/beacon`).
    static let path: String = {
        // `BEACON_TEST_BINARY=.build/release/beacon swift test --skip-build --filter Tmux`
        // runs the terminal tests against a release build (see the README's dashboard section).
        if let given = ProcessInfo.processInfo.environment["BEACON_TEST_BINARY"], !given.isEmpty {
            return URL(fileURLWithPath: given).standardizedFileURL.path
        }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidates = [bundle.appendingPathComponent("beacon").path]
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/beacon").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    struct Result {
        var status: Int32
        /// Ended by a signal (a trap, or the watchdog), not by exit().
        var signalled = false
        var stdout: String
        var stderr: String
    }

    /// Runs to completion with the given standard input, on a thread of its own (see
    /// ``offThePool(_:)``).
    static func run(_ arguments: [String], stdin: String? = nil) async throws -> Result {
        try await offThePool { try runBlocking(arguments, stdin: stdin.map { Data($0.utf8) }) }
    }

    /// Runs with raw bytes on standard input (which a `String` could not hold), through
    /// `executable` (default: beacon), killed with SIGKILL if still running after `limit`.
    static func run(
        _ arguments: [String], stdinBytes: Data?, executable: String = path, limit: Duration = .seconds(60)
    ) async throws -> Result {
        try await offThePool { try runBlocking(arguments, stdin: stdinBytes, executable: executable, limit: limit) }
    }

    /// Runs each argument list (no standard input, killed after `limit`), `width` at a
    /// time, and returns the results in the order given. A property test spawns a
    /// thousand short processes, each about 70 ms of a debug build's start-up CPU: on two
    /// cores, two at a time halve the wall time and change nothing else.
    static func runAll(
        _ invocations: [[String]], width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
        limit: Duration = .seconds(20)
    ) async throws -> [Result] {
        try await BeaconTesting.concurrently(invocations, width: width) { arguments in
            try await run(arguments, stdinBytes: nil, limit: limit)
        }
    }

    /// Spawns through ``spawn(_:_:environment:streams:)``, not Foundation's `Process`. Standard input
    /// comes from a file, output goes to files, and a watchdog kills the child after
    /// `limit` (only before it is reaped, so a reused pid is never hit).
    private static func runBlocking(
        _ arguments: [String], stdin: Data?, executable: String = path, limit: Duration = .seconds(60)
    ) throws -> Result {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let inputPath = directory + "/stdin", outputPath = directory + "/stdout", errorPath = directory + "/stderr"
        try (stdin ?? Data()).write(to: URL(fileURLWithPath: inputPath))
        let pid = try spawn(executable, arguments) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        let isReaped = ReapedFlag()
        let watchdog = DispatchWorkItem {
            isReaped.value.withLock { reaped in if !reaped { kill(pid, SIGKILL) } }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(limit.components.seconds * 1000)), execute: watchdog)
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        isReaped.value.withLock { $0 = true }
        watchdog.cancel()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signalled = (status & 0x7f) != 0
        let read = { (file: String) in String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data(), as: UTF8.self) }
        return Result(
            status: signalled ? status & 0x7f : (status >> 8) & 0xff, signalled: signalled, stdout: read(outputPath),
            stderr: read(errorPath))
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which the Glibc module does not export.
    static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// A fresh temporary directory, removed when the test process exits (if not before).
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        TemporaryDirectories.created(path)
        return path
    }
}

/// The directories ``BeaconProcess/temporaryDirectory()`` made, removed when the test
/// process exits: a test that returns early, or forgets its `defer`, leaves none behind
/// (a full run used to leave about 70 in `/tmp`).
private enum TemporaryDirectories {
    static let paths = Mutex<[String]>([])
    static let removal: Void = {
        atexit {
            // Best effort, at exit: a directory a test made unremovable stays.
            for path in TemporaryDirectories.paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }()

    static func created(_ path: String) {
        _ = removal
        paths.withLock { $0.append(path) }
    }
}

/// Whether a child is reaped yet, shared with its watchdog.
private final class ReapedFlag: Sendable {
    let value = Mutex(false)
}

/// Runs blocking work (waiting for a process, reading a pipe to its end) on a thread of
/// its own. Tests run on Swift's cooperative pool, as wide as the core count (2 here):
/// two tests blocking it stall every other test's async work, timers included.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The part of Foundation's `Process` the CLI tests use, started with `posix_spawn`.
/// On Linux with Swift 6.3.1, `Process.run()` now and then over-reads a `dirent` while it
/// lists `/proc/self/fd` and crashes the whole test runner (swift-corelibs-foundation PR
/// #5472); `BeaconProcess.run` avoids it the same way for one-shot runs.
///
/// Standard streams take a `Pipe` (the child's end is closed here after the spawn, so
/// reads see the end of the stream), a `FileHandle`, or nothing (`/dev/null`).
final class ChildProcess: @unchecked Sendable {
    // @unchecked: the configuration is set before `run()` on one thread; the exit state
    // after it lives in `state`, behind a mutex.
    var executableURL: URL?
    var arguments: [String] = []
    var environment: [String: String]?
    var standardInput: Any?
    var standardOutput: Any?
    var standardError: Any?

    private(set) var processIdentifier: pid_t = 0
    private let state = Mutex<Int32?>(nil)  // the wait status, once reaped

    func run() throws {
        guard let executable = executableURL?.path else { throw TmuxError("ChildProcess: no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream, isInput) in [(Int32(0), standardInput, true), (1, standardOutput, false), (2, standardError, false)] {
            switch stream {
            case let pipe as Pipe:
                let end = isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
            case let handle as FileHandle where handle !== FileHandle.nullDevice && handle.fileDescriptor >= 0:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", isInput ? O_RDONLY : O_WRONLY, 0)
            }
        }
        guard let closeFrom = BeaconProcess.addCloseFrom else { throw TmuxError("posix_spawn_file_actions_addclosefrom_np is missing") }
        _ = closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw TmuxError("cannot start \(executable): error \(spawned)") }
        processIdentifier = pid
        // The child holds its own copies now; closing ours lets reads end when it exits.
        for (stream, isInput) in [(standardInput, true), (standardOutput, false), (standardError, false)] {
            guard let pipe = stream as? Pipe else { continue }
            try? (isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()  // best effort: our copy only
        }
    }

    /// Whether the child has not exited yet (reaping it if it has).
    var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the child to exit.
    func waitUntilExit() { _ = reap(blocking: true) }

    /// Sends SIGTERM.
    func terminate() { if isRunning { kill(processIdentifier, SIGTERM) } }

    /// How the child ended (call after it exited).
    var terminationReason: Process.TerminationReason {
        ((reap(blocking: true) ?? 0) & 0x7f) != 0 ? .uncaughtSignal : .exit
    }

    /// The exit code, or the signal for ``terminationReason`` `.uncaughtSignal`.
    var terminationStatus: Int32 {
        let status = reap(blocking: true) ?? 0
        return (status & 0x7f) != 0 ? status & 0x7f : (status >> 8) & 0xff
    }

    /// The wait status once the child is reaped; `nil` while it runs (non-blocking).
    private func reap(blocking: Bool) -> Int32? {
        if blocking {
            // Waits for the exit without reaping, outside the lock, then reaps below.
            var info = siginfo_t()
            while state.withLock({ $0 }) == nil, waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) == -1,
                errno == EINTR {}
        }
        return state.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(processIdentifier, &raw, WNOHANG) } while reaped == -1 && errno == EINTR
            guard reaped == processIdentifier else { return nil }
            status = raw
            return raw
        }
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The part of Foundation's `Process` the CLI tests use, started through ``spawn(_:_:environment:streams:)``
/// (see there why not `Process` itself).
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
        let pid = try spawn(executable, arguments, environment: environment) { actions in
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
        }
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

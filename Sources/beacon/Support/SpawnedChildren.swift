import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Every child this process started and has not reaped, registered under the same lock as
/// the spawn itself: an interrupt that takes the lock (``stopAll()``) finds every child
/// already started, even one not listening yet, and none starts after it. So a runner
/// interrupted at any moment (`simulate` restarting its engine) leaves no orphan.
enum SpawnedChildren {
    private struct State {
        var pids: Set<pid_t> = []
        var stopping = false
    }

    private static let state = Mutex(State())

    /// Runs `spawn` (a `posix_spawn`, returning the child's pid or `nil`) under the lock
    /// and registers the child; `nil` without running it once ``stopAll()`` was called.
    static func spawn(_ spawn: () -> pid_t?) -> pid_t? {
        state.withLock { state in
            guard !state.stopping, let pid = spawn() else { return nil }
            state.pids.insert(pid)
            return pid
        }
    }

    /// A child reaped: no longer to stop.
    static func reaped(_ pid: pid_t) {
        state.withLock { _ = $0.pids.remove(pid) }
    }

    /// Starts no more children and returns those running, for the caller to stop.
    static func stopAll() -> Set<pid_t> {
        state.withLock { state in
            state.stopping = true
            return state.pids
        }
    }

    /// Whether ``stopAll()`` was called: a spawn refused then is an interrupt, not a failure.
    static var isStopping: Bool { state.withLock { $0.stopping } }
}

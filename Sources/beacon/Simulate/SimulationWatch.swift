import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `--watch`: `beacon monitor` on the run's store, in this terminal, while the run goes on.
/// It attaches to the engine's control channel (and again after a kill and restart); the
/// run stops it at the end, then prints the report.
final class SimulationWatch: Sendable {
    let pid: pid_t

    private init(pid: pid_t) {
        self.pid = pid
    }

    /// Starts the monitor on `store`, sharing this process's terminal; its title shows the
    /// first line of `captionFile` (the running step), read anew at each tick.
    static func start(store: String, captionFile: String) async throws -> SimulationWatch {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let arguments = [executable, "monitor", "--db", store, "--caption-file", captionFile]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var spawned: Int32 = 0
        let started = SpawnedChildren.spawn {
            var pid = pid_t()
            spawned = posix_spawn(&pid, executable, nil, nil, argv, environ)
            return spawned == 0 ? pid : nil
        }
        guard let pid = started else { throw CLIError.runtime("--watch: cannot start beacon monitor: error \(spawned)") }
        return SimulationWatch(pid: pid)
    }

    /// Stops the monitor (SIGTERM; it restores the terminal) and waits for it.
    func stop() async {
        kill(pid, SIGTERM)
        let pid = self.pid
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                _ = ListeningChild.reap(pid)
                continuation.resume()
            }
        }
    }
}

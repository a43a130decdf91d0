import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C or SIGTERM during a run: the engine and the monitor this run started are
/// stopped too (SIGTERM), so no process is left holding the run's store, then the run
/// exits 130 (143 for SIGTERM) with a line that says where its files are. Every child
/// counts from the moment it is spawned (``SpawnedChildren``), an engine still starting
/// (a restart) included, and none is started after the interrupt.
final class SimulationInterrupt: @unchecked Sendable {
    // @unchecked: `children` is a mutex; `sources` is set in `init` and never changed.
    private let children = Mutex<Set<pid_t>>([])
    private var sources: [DispatchSourceSignal] = []

    /// Starts watching SIGINT and SIGTERM; `directory` is named in the line printed.
    init(directory: String) {
        var made: [DispatchSourceSignal] = []
        for signal in [SIGINT, SIGTERM] {
            Glibc.signal(signal, SIG_IGN)  // delivered to the dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { [weak self] in
                let pids = (self?.children.withLock { $0 } ?? []).union(SpawnedChildren.stopAll())
                for pid in pids { kill(pid, SIGTERM) }
                for pid in pids {
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                }
                FileHandle.standardError.write(Data("beacon: simulate interrupted; the run's files are in \(directory)\n".utf8))
                exit(128 + signal)
            }
            source.resume()
            made.append(source)
        }
        sources = made
    }

    /// A child to stop on an interrupt.
    func started(_ pid: pid_t) {
        children.withLock { _ = $0.insert(pid) }
    }

    /// A child that ended (or was reaped by the run).
    func ended(_ pid: pid_t) {
        children.withLock { _ = $0.remove(pid) }
    }
}

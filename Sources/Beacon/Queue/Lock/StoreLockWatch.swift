import Logging
import ServiceLifecycle
import Synchronization

/// Checks a held ``StoreLock`` (``StoreLock/check()``) on a timer and whenever it is asked
/// (``checkNow()``: the control channel asks before every command), and says loudly, once
/// each, what it finds: the holder file removed or replaced (written again; the lock is on
/// the store itself and still keeps every other engine out), or the store file itself
/// removed or replaced while this process serves it. Run it beside the engine, in the same
/// service group, and give it to ``BeaconEngine/serveControl(at:lock:watch:logger:)``.
public struct StoreLockWatch: Service {
    /// The lock it checks.
    public let lock: StoreLock
    private let interval: Duration
    private let logger: Logger
    /// The problems the last check found, so each is logged once while it lasts.
    private let said = SaidProblems()

    public init(lock: StoreLock, interval: Duration = .seconds(2), logger: Logger) {
        self.lock = lock
        self.interval = interval
        self.logger = logger
    }

    /// Checks the lock now and logs, as errors, the problems the previous check had not found.
    @discardableResult
    public func checkNow() -> StoreLockCheck {
        let check = lock.check()
        let fresh = said.replace(with: check.problems)
        for problem in fresh {
            logger.error("\(problem)", metadata: ["store": "\(lock.store)"])
        }
        return check
    }

    public func run() async {
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                checkNow()
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}

/// What a ``StoreLockWatch`` has said: shared by its timer and the control channel.
private final class SaidProblems: Sendable {
    private let problems = Mutex<Set<String>>([])

    /// Keeps `found` as what is said now; answers those not said before, in order.
    func replace(with found: [String]) -> [String] {
        problems.withLock { said in
            let fresh = found.filter { !said.contains($0) }
            said = Set(found)
            return fresh
        }
    }
}

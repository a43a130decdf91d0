import Logging
import ServiceLifecycle

/// Checks a held ``StoreLock`` on a timer (``StoreLock/check()``) and says loudly, once
/// each, what it finds: the holder file removed or replaced (written again; the lock is
/// on the store itself and still keeps every other engine out), or the store file itself
/// removed or replaced while this process serves it. Run it beside the engine, in the
/// same service group.
public struct StoreLockWatch: Service {
    private let lock: StoreLock
    private let interval: Duration
    private let logger: Logger

    public init(lock: StoreLock, interval: Duration = .seconds(2), logger: Logger) {
        self.lock = lock
        self.interval = interval
        self.logger = logger
    }

    public func run() async {
        await cancelWhenGracefulShutdown { [lock, interval, logger] in
            var said: Set<String> = []
            while !Task.isCancelled {
                let problems = lock.check().problems
                for problem in problems where !said.contains(problem) {
                    logger.error("\(problem)", metadata: ["store": "\(lock.store)"])
                }
                said = Set(problems)
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}

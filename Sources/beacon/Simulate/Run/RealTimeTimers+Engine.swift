import Beacon
import BeaconSimulation

extension RealTimeTimers {
    /// The timers of an engine flushing under `policy` and retrying under `retry` (the
    /// agent's defaults): its shortest interval, smallest count, backoff and Retry-After cap.
    init(policy: FlushPolicy, retry: RetryPolicy = RetryPolicy()) {
        var intervals: [Duration] = []
        var counts: [Int] = []
        func collect(_ policy: FlushPolicy) {
            switch policy {
            case .manual: break
            case .count(let count): counts.append(count)
            case .interval(let interval): intervals.append(interval)
            case .any(let policies): policies.forEach(collect)
            }
        }
        collect(policy)
        self.init(
            flushIntervalSeconds: intervals.min().map(\.inSeconds), flushCount: counts.min(),
            backoffInitialSeconds: retry.initialDelay.inSeconds, backoffMultiplier: retry.multiplier,
            backoffMaxSeconds: retry.maxDelay.inSeconds, maxRetryAfterSeconds: retry.maxRetryAfter.inSeconds)
    }
}

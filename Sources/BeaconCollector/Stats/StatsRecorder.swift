import BeaconWire
import Synchronization

/// Accumulates request outcomes into counters, per-second rate buckets and the bounded
/// request log. One lock around plain values: recording costs a few dictionary updates.
final class StatsRecorder: Sendable {
    private struct Bucket {
        var second: Int
        var received = 0
        var stored = 0
        var requests = 0
    }

    private struct State {
        var stats = CollectorStats()
        var buckets: [Bucket] = []
        var log: [RequestLogEntry] = []
        var logStart = 0
        var nextSequence = 0
    }

    /// The rates' window, in seconds.
    static let rateWindow = 5

    private let state = Mutex(State())
    private let start: ContinuousClock.Instant
    private let logCapacity: Int

    init(logCapacity: Int, start: ContinuousClock.Instant = .now) {
        self.logCapacity = max(1, logCapacity)
        self.start = start
    }

    /// Seconds since the recorder was created.
    func elapsed(at instant: ContinuousClock.Instant = .now) -> Double {
        (instant - start).inSeconds
    }

    /// Records one answered request that arrived at `arrival`.
    func record(_ outcome: RequestOutcome, arrival: ContinuousClock.Instant, arrivalWallClock: Timestamp) {
        let arrivedAt = elapsed(at: arrival)
        let now = elapsed()
        let second = Int(now)
        state.withLock { state in
            state.stats.requests += 1
            state.stats.received += outcome.received
            state.stats.stored += outcome.stored
            state.stats.duplicates += outcome.duplicates
            state.stats.rejected += outcome.rejected
            state.stats.faulted += outcome.faulted
            for (code, count) in outcome.rejectedByCode {
                state.stats.rejectedByReason[code, default: 0] += count
            }
            if let code = outcome.errorCode {
                state.stats.errorsByCode[code, default: 0] += 1
            }
            let statusKey = outcome.status == 0 ? "reset" : String(outcome.status)
            state.stats.responsesByStatus[statusKey, default: 0] += 1

            if state.buckets.last?.second != second {
                state.buckets.append(Bucket(second: second))
                state.buckets.removeAll { $0.second <= second - Self.rateWindow - 1 }
            }
            state.buckets[state.buckets.count - 1].received += outcome.received
            state.buckets[state.buckets.count - 1].stored += outcome.stored
            state.buckets[state.buckets.count - 1].requests += 1

            let entry = RequestLogEntry(
                sequence: state.nextSequence, secondsSinceStart: arrivedAt,
                arrivedAtMilliseconds: arrivalWallClock.millisecondsSince1970, method: outcome.method,
                route: outcome.route, status: outcome.status, events: outcome.received, errorCode: outcome.errorCode,
                fault: outcome.fault, durationSeconds: max(0, now - arrivedAt))
            state.nextSequence += 1
            if state.log.count < logCapacity {
                state.log.append(entry)
            } else {
                state.log[state.logStart] = entry
                state.logStart = (state.logStart + 1) % logCapacity
            }
        }
    }

    /// The counters, with rates over the last ``rateWindow`` seconds.
    func snapshot() -> CollectorStats {
        let now = elapsed()
        let second = Int(now)
        return state.withLock { state in
            var stats = state.stats
            // At least one second, so the first requests do not read as a huge rate.
            let window = min(Double(Self.rateWindow), max(now, 1))
            let recent = state.buckets.filter { $0.second > second - Self.rateWindow }
            stats.receivedPerSecond = Double(recent.reduce(0) { $0 + $1.received }) / window
            stats.storedPerSecond = Double(recent.reduce(0) { $0 + $1.stored }) / window
            stats.requestsPerSecond = Double(recent.reduce(0) { $0 + $1.requests }) / window
            stats.rateWindowSeconds = window
            stats.uptimeSeconds = now
            return stats
        }
    }

    /// The request log, oldest first.
    func log() -> [RequestLogEntry] {
        state.withLock { state in
            Array(state.log[state.logStart...] + state.log[..<state.logStart])
        }
    }
}

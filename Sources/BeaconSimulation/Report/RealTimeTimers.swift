/// The engine's timers that run in real time whatever the scenario's `timeScale`: the flush
/// interval, the retry backoff and the `Retry-After` it honours.
///
/// `beacon simulate` runs the real engine (`beacon agent`, its own process and clock), so
/// under a time scale the steps shrink and these timers do not: a 10-minute throttle at 600×
/// lasts 1 s and sees one retry. Rather than give the engine a clock that lies (and measure
/// an engine nobody runs), the report says, step by step, where a timer is long enough
/// against the step's wall time to shape what was measured. Pure: the runner gives the
/// engine's settings, each step gets its warnings.
///
/// ```swift
/// let timers = RealTimeTimers(flushIntervalSeconds: 1, flushCount: nil)
/// timers.warnings(for: step, in: scenario, timeScale: 600)
/// // ["flush every 1 s runs in real time: 10 min of scenario time between flushes (the step lasts 30 min)"]
/// ```
public struct RealTimeTimers: Sendable, Hashable, Codable {
    /// The flush policy's shortest interval in seconds; `nil` when it has none.
    public var flushIntervalSeconds: Double?
    /// The policy's smallest count threshold; `nil` when it has none.
    public var flushCount: Int?
    /// The retry backoff: the first delay, its growth per failure, and its cap, in seconds.
    public var backoffInitialSeconds: Double
    public var backoffMultiplier: Double
    public var backoffMaxSeconds: Double
    /// The longest `Retry-After` the engine honours, in seconds.
    public var maxRetryAfterSeconds: Double

    /// A timer shapes a step when the step sees fewer than this many of it.
    static let fewPerStep = 10.0

    public init(
        flushIntervalSeconds: Double?, flushCount: Int?, backoffInitialSeconds: Double = 0.5, backoffMultiplier: Double = 2,
        backoffMaxSeconds: Double = 60, maxRetryAfterSeconds: Double = 600
    ) {
        self.flushIntervalSeconds = flushIntervalSeconds
        self.flushCount = flushCount
        self.backoffInitialSeconds = backoffInitialSeconds
        self.backoffMultiplier = backoffMultiplier
        self.backoffMaxSeconds = backoffMaxSeconds
        self.maxRetryAfterSeconds = maxRetryAfterSeconds
    }

    /// Where real-time timers dominate `step` of `scenario` run `timeScale` times faster; none
    /// at a time scale of 1 (or a value that is not a number), where scenario time is real time.
    public func warnings(for step: ScenarioStep, in scenario: Scenario, timeScale: Double) -> [String] {
        guard timeScale.isFinite, timeScale > 1, step.seconds.isFinite, step.seconds > 0 else { return [] }
        let wall = step.seconds / timeScale
        let lasts = "(the step lasts \(Self.duration(step.seconds)))"
        var warnings: [String] = []
        let condition = scenario.condition(of: step)
        let tracks = step.rate > 0 || step.burst > 0 || step.poison > 0
        if let interval = flushIntervalSeconds, interval.isFinite, interval > 0, tracks, condition != .offline,
            interval * timeScale * Self.fewPerStep > step.seconds
        {
            // A count threshold reached before the interval flushes first: the interval does not matter.
            let perInterval = step.rate * timeScale * interval
            if flushCount.map({ perInterval < Double($0) }) ?? true {
                warnings.append(
                    "flush every \(Self.duration(interval)) runs in real time: \(Self.duration(interval * timeScale)) of scenario time between flushes \(lasts)")
            }
        }
        if condition == .faulted {
            let seen = retries(within: wall), written = retries(within: step.seconds)
            if seen < written {
                let next = delay(afterFailures: seen)
                warnings.append(
                    "retries back off in real time (\(Self.duration(backoffInitialSeconds)) growing to \(Self.duration(backoffMaxSeconds))): \(seen) in the step's \(Self.duration(wall)) of wall time instead of \(written) in \(Self.duration(step.seconds)); the next can wait \(Self.duration(next)), \(Self.duration(next * timeScale)) of scenario time")
            }
        }
        for collector in scenario.collectors {
            let faults = step.faults(for: collector)
            guard !faults.down, faults.throttleRate > 0, faults.retryAfterSeconds > 0 else { continue }
            let honoured = min(Double(faults.retryAfterSeconds), maxRetryAfterSeconds)
            if honoured * timeScale * Self.fewPerStep > step.seconds {
                warnings.append(
                    "\(collector.name)'s Retry-After \(Self.duration(honoured)) is honoured in real time: \(Self.duration(honoured * timeScale)) of scenario time \(lasts)")
            }
        }
        return warnings
    }

    /// Retries made within `seconds` of failing, each after the backoff's delay (no jitter).
    func retries(within seconds: Double) -> Int {
        var elapsed = 0.0
        var count = 0
        while count < 10_000 {
            elapsed += delay(afterFailures: count)
            guard elapsed <= seconds else { break }
            count += 1
        }
        return count
    }

    /// The backoff's delay after `failures` failures in a row, capped.
    func delay(afterFailures failures: Int) -> Double {
        guard backoffInitialSeconds.isFinite, backoffInitialSeconds > 0 else { return 1 }
        let cap = backoffMaxSeconds.isFinite ? max(backoffInitialSeconds, backoffMaxSeconds) : backoffInitialSeconds
        var delay = backoffInitialSeconds
        var step = 0
        while step < failures, delay < cap {
            delay *= backoffMultiplier.isFinite && backoffMultiplier > 1 ? backoffMultiplier : 2
            step += 1
        }
        return min(delay, cap)
    }

    /// `0.5 s`, `45 s`, `10 min`, `2.5 h`, `3 d`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        if seconds < 100 { return SimulationComparison.Figure.short(seconds) + " s" }
        if seconds < 6_000 { return SimulationComparison.Figure.short(seconds / 60) + " min" }
        if seconds < 172_800 { return SimulationComparison.Figure.short(seconds / 3_600) + " h" }
        return SimulationComparison.Figure.short(seconds / 86_400) + " d"
    }
}

import Foundation

/// "Nice" axis ticks: steps of 1, 2 or 5 × 10^k for values, and clock-friendly steps for time.
struct ChartTicks: Equatable {
    /// The top of the axis: the first tick at or above the data's maximum.
    var maximum: Double
    /// Tick values from 0 up to ``maximum`` (for time: up to the duration), ascending.
    var values: [Double]
    /// Whether time labels read m:ss instead of seconds.
    var usesMinutes: Bool = false

    /// Ticks from 0 to a nice maximum at or above `maximum`, about `count` steps apart.
    /// A non-positive or non-finite maximum gives the axis 0…1. `integral` keeps the step
    /// at 1 or more (queue depths are whole events).
    static func values(upTo maximum: Double, count: Int, integral: Bool) -> ChartTicks {
        var top = maximum.isFinite && maximum > 0 ? maximum : 1
        if integral { top = Swift.max(top, 1) }
        let steps = Swift.max(1, count)
        var step = niceStep(atLeast: top / Double(steps))
        if integral { step = Swift.max(step, 1) }
        let stepCount = ChartFormat.clampedInt((top / step - 1e-9).rounded(.up), in: 1...1_000)
        return ChartTicks(maximum: Double(stepCount) * step, values: (0...stepCount).map { Double($0) * step })
    }

    /// Time ticks from 0 to `duration` seconds, at most about `count` of them: seconds up to
    /// 120 s, m:ss beyond with steps of 15 s, 30 s, 1, 2, 5, 10, 15, 30 minutes and so on.
    static func time(duration: Double, count: Int) -> ChartTicks {
        let end = duration.isFinite && duration > 0 ? duration : 1
        let steps = Swift.max(1, count)
        let usesMinutes = end > 120
        var step: Double
        if usesMinutes {
            let clockSteps: [Double] = [15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400]
            step = clockSteps.first { end / $0 <= Double(steps) } ?? niceStep(atLeast: end / Double(steps))
        } else {
            step = niceStep(atLeast: end / Double(steps))
        }
        step = Swift.max(step, 0.1)
        let stepCount = ChartFormat.clampedInt((end / step + 1e-9).rounded(.down), in: 0...1_000)
        return ChartTicks(maximum: end, values: (0...stepCount).map { Double($0) * step }, usesMinutes: usesMinutes)
    }

    /// The smallest of 1, 2, 5 × 10^k that is at least `minimum`.
    private static func niceStep(atLeast minimum: Double) -> Double {
        guard minimum.isFinite, minimum > 0 else { return 1 }
        let magnitude = pow(10, log10(minimum).rounded(.down))
        for factor in [1.0, 2, 5, 10] where factor * magnitude >= minimum * (1 - 1e-12) {
            return factor * magnitude
        }
        return 10 * magnitude
    }
}

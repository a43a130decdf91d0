/// The one home for turning a `Duration` into numbers and numbers from outside (flags,
/// config feeds, headers) into a `Duration`. Whole-unit conversions truncate toward zero
/// and saturate at `Int64`'s bounds instead of trapping.
extension Duration {
    /// The duration in seconds, as a `Double` (fractions kept).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in milliseconds, as a `Double` (fractions kept).
    public var inMillisecondsDouble: Double { inSeconds * 1000 }

    /// Whole milliseconds, truncated toward zero, saturating at `Int64`'s bounds.
    public var inMilliseconds: Int64 { whole(unitsPerSecond: 1_000) }

    /// Whole microseconds, truncated toward zero, saturating at `Int64`'s bounds.
    public var inMicroseconds: Int64 { whole(unitsPerSecond: 1_000_000) }

    /// Whole nanoseconds, truncated toward zero, saturating at `Int64`'s bounds.
    public var inNanoseconds: Int64 { whole(unitsPerSecond: 1_000_000_000) }

    /// A duration of `seconds` taken from outside, or `nil` when it is not a finite number
    /// from 0 to `maximum` (NaN, ±infinity, negative, 1e300…). Never traps.
    ///
    /// ```swift
    /// Duration(checkedSeconds: 2.5)      // 2.5 s
    /// Duration(checkedSeconds: 1e300)    // nil
    /// ```
    public init?(checkedSeconds seconds: Double, maximum: Duration = .maximumFromOutside) {
        guard seconds.isFinite, seconds >= 0, seconds <= maximum.inSeconds else { return nil }
        let whole = seconds.rounded(.towardZero)
        // Bounded above by `maximum`, so both conversions are exact enough and cannot trap.
        let attoseconds = ((seconds - whole) * 1e18).rounded()
        // checked: 0 ≤ whole ≤ maximum (10 years) and 0 ≤ attoseconds ≤ 1e18, both exact in Int64.
        self = .seconds(Int64(whole)) + Duration(secondsComponent: 0, attosecondsComponent: Int64(attoseconds))  // checked: above
    }

    /// The longest duration accepted from outside: 10 years, far past any sane timeout or
    /// interval and far inside every clock's range.
    public static let maximumFromOutside: Duration = .seconds(10 * 366 * 86_400)

    private func whole(unitsPerSecond: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: unitsPerSecond)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflowAgain) = scaled.addingReportingOverflow(attoseconds / (1_000_000_000_000_000_000 / unitsPerSecond))
        if overflowAgain { return seconds < 0 ? .min : .max }
        return sum
    }
}

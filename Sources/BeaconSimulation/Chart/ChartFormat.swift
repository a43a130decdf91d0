import Foundation

/// Fixed formatting routines for the chart, so that the same timeline always gives the
/// same text (golden tests compare it byte for byte). Nothing here prints "nan" or "inf".
enum ChartFormat {
    /// `value` converted to `Int` and clamped to `range`; NaN gives the lower bound.
    /// Use this instead of `Int(someDouble)`, which traps on NaN, infinity and overflow.
    static func clampedInt(_ value: Double, in range: ClosedRange<Int>) -> Int {
        guard !value.isNaN else { return range.lowerBound }
        if value <= Double(range.lowerBound) { return range.lowerBound }
        // Double(Int.max) rounds up to 2^63, so `>=` also catches values just past it.
        if value >= Double(range.upperBound) { return range.upperBound }
        return Int(value)  // checked: not NaN, strictly inside range, so it fits an Int
    }

    /// `value` with at most one decimal: "12", "12.5", "-3". Non-finite values give "0";
    /// magnitudes are capped at 10^14.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let limit = 1_000_000_000_000_000
        let tenths = clampedInt((value * 10).rounded(), in: -limit...limit)
        if tenths == 0 { return "0" }
        let whole = tenths.magnitude / 10
        let fraction = tenths.magnitude % 10
        let sign = tenths < 0 ? "-" : ""
        return fraction == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
    }

    /// A short label for an axis: 950, 1.2k, 45k, 1.5M, 9.2E; 1e21 and up as mantissa and exponent.
    static func compact(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        if (magnitude * 10).rounded() < 10_000 { return sign + decimal(magnitude) }
        for (scale, suffix) in [(1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"), (1e15, "P"), (1e18, "E")] {
            let scaled = magnitude / scale
            if (scaled * 10).rounded() < 1_000 { return sign + decimal(scaled) + suffix }
            if scaled.rounded() < 1_000 { return sign + decimal(scaled.rounded()) + suffix }
        }
        let exponent = Foundation.log10(magnitude).rounded(.down)
        let mantissa = magnitude / Foundation.pow(10, exponent)
        return sign + decimal(mantissa) + "e" + decimal(exponent)
    }

    /// `value` with thousands separators: "4,012". Values of a billion and more go compact.
    static func grouped(_ value: Int) -> String {
        value.magnitude < 1_000_000_000 ? SimulationFormat.count(value) : compact(Double(value))
    }

    /// A time label: seconds ("30s", "1.5s"), or m:ss ("2:05") when `minutes` is true.
    static func time(_ seconds: Double, minutes: Bool) -> String {
        guard minutes else { return decimal(seconds) + "s" }
        let total = clampedInt(seconds.rounded(), in: 0...Int(Int32.max))
        let remainder = total % 60
        return "\(total / 60):" + (remainder < 10 ? "0\(remainder)" : "\(remainder)")
    }
}

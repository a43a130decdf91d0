extension FixedWidthInteger {
    /// `value` rounded toward zero, clamped to this type's bounds; NaN gives 0. The one
    /// way a floating-point figure becomes an integer here: it never traps, whatever the
    /// figure (an infinite rate from a zero duration, 1e300 from a feed).
    ///
    /// ```swift
    /// Int64(saturating: 1e300)          // Int64.max
    /// Int(saturating: Double.nan)       // 0
    /// ```
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value <= Double(Self.min) {
            self = .min
        } else if value >= Double(Self.max) {
            // Double(max) rounds up to a power of two for 64-bit types, so `>=` is the bound.
            self = .max
        } else {
            self.init(value)  // checked: finite and strictly inside the bounds above
        }
    }
}

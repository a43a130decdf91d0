/// Number, byte, duration and rate formatting, done by hand so renders are the same in
/// every locale and need no Foundation.
enum Format {
    /// `1234567` → `1,234,567`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// `value` rounded to `decimals` places (0…3), e.g. `fixed(1.25, 1)` → `1.3`.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "–" }
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        // Saturating: a value past Int.max (1e300 read from outside) must not trap.
        let scaled = Int(saturating: (value.magnitude * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(scaled) }
        let fraction = String(scaled % scale)
        return sign + String(scaled / scale) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// Decimal units: `512 B`, `12.3 KB`, `456 KB`, `1.2 MB`, `3.4 GB`.
    static func bytes(_ value: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var scaled = Double(max(0, value))
        var unit = 0
        while scaled >= 999.95, unit < units.count - 1 {
            scaled /= 1000
            unit += 1
        }
        if unit == 0 { return "\(max(0, value)) B" }
        return (scaled < 99.95 ? fixed(scaled, 1) : fixed(scaled, 0)) + " " + units[unit]
    }

    /// Short durations: `0.4 ms`, `12 ms`, `1.25 s`, `12.5 s`, `2m05s`, `3h02m`.
    static func duration(_ duration: Duration) -> String {
        let millis = duration.inMillisecondsDouble
        if millis < 0 { return "0 ms" }
        if millis < 9.95 { return fixed(millis, 1) + " ms" }
        if millis < 999.5 { return fixed(millis, 0) + " ms" }
        if millis < 9995 { return fixed(millis / 1000, 2) + " s" }
        if millis < 59_950 { return fixed(millis / 1000, 1) + " s" }
        let totalSeconds = Int(saturating: (millis / 1000).rounded())
        if totalSeconds < 3600 { return "\(totalSeconds / 60)m" + twoDigits(totalSeconds % 60) + "s" }
        return "\(totalSeconds / 3600)h" + twoDigits(totalSeconds / 60 % 60) + "m"
    }

    /// A span between two snapshot times, never negative.
    static func elapsed(milliseconds: Int64) -> String {
        duration(.milliseconds(max(0, milliseconds)))
    }

    /// A share from 0 to 1 as a whole percent: `30 %` (one not a finite number: `?`).
    static func percent(_ share: Double) -> String {
        guard share.isFinite else { return "?" }
        return "\(Int(exactly: (min(1, max(0, share)) * 100).rounded()) ?? 0) %"
    }

    /// Events per second: `0/s`, `2.5/s`, `120/s`, `12.3k/s`, `1.2M/s`; past a billion,
    /// `>1G/s` (no engine sends that: a rate read from a damaged or hostile status).
    static func rate(_ perSecond: Double) -> String {
        guard perSecond.isFinite, perSecond > 0 else { return "0/s" }
        guard perSecond < 999_950_000 else { return ">1G/s" }
        if perSecond < 9.95 { return fixed(perSecond, 1) + "/s" }
        if perSecond < 9_999.5 { return fixed(perSecond, 0) + "/s" }
        if perSecond < 999_950 { return fixed(perSecond / 1000, 1) + "k/s" }
        return fixed(perSecond / 1_000_000, 1) + "M/s"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

extension Format {
    /// `HH:MM:SS` in UTC of a wall-clock time in milliseconds since 1970.
    static func timeOfDay(millisecondsSince1970 milliseconds: Int64) -> String {
        let dayMilliseconds: Int64 = 86_400_000
        let secondOfDay = Int(((milliseconds % dayMilliseconds) + dayMilliseconds) % dayMilliseconds / 1000)
        return twoDigits(secondOfDay / 3600) + ":" + twoDigits(secondOfDay / 60 % 60) + ":" + twoDigits(secondOfDay % 60)
    }

    /// A coarse age in whole units, never negative: `0s`, `42s`, `2m05s`, `3h02m`, `4d07h`.
    static func age(milliseconds: Int64) -> String {
        let seconds = Int(max(0, milliseconds) / 1000)
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m" + twoDigits(seconds % 60) + "s" }
        if seconds < 86_400 { return "\(seconds / 3600)h" + twoDigits(seconds / 60 % 60) + "m" }
        return "\(seconds / 86_400)d" + twoDigits(seconds / 3600 % 24) + "h"
    }

    /// A poll interval as typed on the command line: `300ms`, `5s`, `1.5s`, `2m`, `2m30s`,
    /// `1h`, `1h30m`.
    static func interval(_ duration: Duration) -> String {
        let millis = duration.inMilliseconds
        if millis < 1000 { return "\(max(0, millis))ms" }
        if millis < 60_000 { return millis % 1000 == 0 ? "\(millis / 1000)s" : fixed(Double(millis) / 1000, 1) + "s" }
        let wholeSeconds = Int(millis / 1000)
        if wholeSeconds >= 3600 {
            let minutes = wholeSeconds / 60 % 60
            return "\(wholeSeconds / 3600)h" + (minutes == 0 ? "" : twoDigits(minutes) + "m")
        }
        return wholeSeconds % 60 == 0 ? "\(wholeSeconds / 60)m" : "\(wholeSeconds / 60)m" + twoDigits(wholeSeconds % 60) + "s"
    }
}

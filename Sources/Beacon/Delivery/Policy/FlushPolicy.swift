/// When the batcher starts sending the queue.
///
/// Once a policy triggers, the batcher drains: it sends batch after batch until the queue
/// is empty or a send fails, without waiting for the next trigger.
///
/// ```swift
/// let policy: FlushPolicy = .any([.count(50), .interval(.seconds(10))])
/// let parsed = try FlushPolicy(parsing: "count 50 or 10s")   // the same policy
/// ```
public indirect enum FlushPolicy: Sendable, Hashable {
    /// Only on an explicit `flush()`.
    case manual
    /// When at least this many events are queued.
    case count(Int)
    /// Every interval, when anything is queued.
    case interval(Duration)
    /// When any of the policies would.
    case any([FlushPolicy])

    /// The default: 100 events or 5 seconds, whichever comes first.
    public static let `default`: FlushPolicy = .any([.count(100), .interval(.seconds(5))])
}

extension FlushPolicy: CustomStringConvertible {
    /// Reads as the parser accepts: `manual`, `count 50`, `every 5s`, `count 20 or 30s`.
    public var description: String {
        switch self {
        case .manual: return "manual"
        case .count(let n): return "count \(n)"
        case .interval(let t): return "every \(FlushPolicy.format(t))"
        case .any(let policies): return policies.isEmpty ? "manual" : policies.map(\.description).joined(separator: " or ")
        }
    }

    static func format(_ duration: Duration) -> String {
        let millis = duration.inMilliseconds
        if millis % 60_000 == 0 && millis >= 60_000 { return "\(millis / 60_000)m" }
        if millis % 1000 == 0 { return "\(millis / 1000)s" }
        return "\(millis)ms"
    }
}

extension FlushPolicy {
    /// Parses `manual`, `count N`, `N events`, `every 5s`, `5s`, `250ms`, `2m`, and
    /// alternatives joined by `or`, `|` or `,`.
    public init(parsing text: String) throws(FlushPolicyParseError) {
        let lowered = text.lowercased()
        var parts: [String] = []
        for separatorless in lowered.replacingOccurrences(" or ", with: "|").split(whereSeparator: { $0 == "|" || $0 == "," }) {
            let trimmed = String(separatorless).trimmingCharacters(in: " \t")
            if !trimmed.isEmpty { parts.append(trimmed) }
        }
        guard !parts.isEmpty else { throw FlushPolicyParseError(text: text, reason: "it is empty") }
        var policies: [FlushPolicy] = []
        for part in parts {
            policies.append(try FlushPolicy.parseOne(part, in: text))
        }
        self = policies.count == 1 ? policies[0] : .any(policies)
    }

    private static func parseOne(_ part: String, in text: String) throws(FlushPolicyParseError) -> FlushPolicy {
        let words = part.split(separator: " ").map(String.init)
        if words == ["manual"] { return .manual }
        if words.count == 2, words[0] == "count", let n = Int(words[1]) {
            guard n > 0 else { throw FlushPolicyParseError(text: text, reason: "a count must be at least 1") }
            return .count(n)
        }
        if words.count == 2, words[1] == "events" || words[1] == "event", let n = Int(words[0]) {
            guard n > 0 else { throw FlushPolicyParseError(text: text, reason: "a count must be at least 1") }
            return .count(n)
        }
        let durationText = words.first == "every" ? words.dropFirst().joined() : words.joined()
        switch readDuration(durationText) {
        case .duration(let duration):
            guard duration > .zero else { throw FlushPolicyParseError(text: text, reason: "an interval must be longer than zero") }
            return .interval(duration)
        case .outOfRange:
            throw FlushPolicyParseError(
                text: text, reason: "the interval '\(part)' is out of range; use more than 0 and at most \(format(.maximumFromOutside))")
        case .notWholeMilliseconds:
            throw FlushPolicyParseError(
                text: text, reason: "the interval '\(part)' is not a whole number of milliseconds; intervals are whole milliseconds, 1ms at least")
        case .notFinite:
            throw FlushPolicyParseError(text: text, reason: "the interval '\(part)' is not a finite number")
        case .notADuration:
            throw FlushPolicyParseError(text: text, reason: "'\(part)' is neither a count nor an interval")
        }
    }

    /// Parses a duration with its unit: `250ms`, `5s`, `1.5s`, `2m`, `1h` (also `sec`, `min`);
    /// `nil` when it is not one, or when it is negative, not finite, longer than
    /// ``Duration/maximumFromOutside`` or not a whole number of milliseconds (`0.5ms`).
    /// Command lines use it for their duration flags.
    public static func parseDuration(_ text: String) -> Duration? {
        if case .duration(let duration) = readDuration(text) { return duration }
        return nil
    }

    /// What a duration text holds: a duration, a number with a unit that is out of range,
    /// not whole milliseconds or not finite, or neither.
    enum DurationReading: Equatable {
        case duration(Duration)
        case outOfRange
        case notWholeMilliseconds
        case notFinite
        case notADuration
    }

    /// Reads a number with its unit, converting through ``Duration/init(checkedSeconds:maximum:)``
    /// so that no number (NaN, ±infinity, 1e300, negative) can trap.
    static func readDuration(_ text: String) -> DurationReading {
        // Milliseconds per unit: whole numbers, so a whole count of units converts exactly.
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("sec", 1000), ("m", 60_000), ("min", 60_000), ("h", 3_600_000)]
        for (suffix, scale) in units.sorted(by: { $0.0.count > $1.0.count }) where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            // Only plain decimal numbers: Double() also reads "nan", "inf" and hex floats.
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
                let value = Double(number)
            else {
                let spelled = number.lowercased().trimmingCharacters(in: "+-")
                return ["nan", "inf", "infinity"].contains(spelled) ? .notFinite : .notADuration
            }
            // The checked conversion refuses NaN, ±infinity, negatives and anything past the
            // maximum, so the count of milliseconds then fits an Int64 exactly.
            let exact = value * scale
            guard Duration(checkedSeconds: exact / 1000) != nil else { return .outOfRange }
            // Whole milliseconds, as the policy's description prints them and the README
            // promises: `0.5ms` is refused, never rounded to another interval. The product
            // above may be off by a few units in the last place (1.1 × 1000), no more.
            let milliseconds = exact.rounded()
            guard abs(exact - milliseconds) <= 4 * max(exact.ulp, Double.leastNormalMagnitude) else { return .notWholeMilliseconds }
            return .duration(.milliseconds(Int64(saturating: milliseconds)))
        }
        return .notADuration
    }
}

extension String {
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }

    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

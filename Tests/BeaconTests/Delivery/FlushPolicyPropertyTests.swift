import Beacon
import BeaconWire
import Testing

/// The policy text parser on hostile numbers: a typed refusal or a policy within range,
/// never a trap. The values come from a seeded generator, so a failure replays.
@Suite("Flush policy parser (property)")
struct FlushPolicyPropertyTests {
    static let extremes = [
        "0", "-0", "-1", "nan", "-nan", "inf", "-inf", "infinity", "1e300", "-1e300", "1e-300", "1e16", "1.7976931348623157e308",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", String(repeating: "9", count: 400), "abc", "",
        "0x1p1023", "1e", ".", "-.5",
    ]

    static func numbers(seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var values = extremes
        for _ in 0..<200 {
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: values.append(String(Double.random(in: 1e3...1e308, using: &generator)))
            case 1: values.append(String(-Double.random(in: 1e-300...1e300, using: &generator)))
            case 2: values.append(String(Int64.random(in: .min ... .max, using: &generator)))
            case 3: values.append(String(Double.random(in: 0...1e-3, using: &generator)))
            default: values.append((0..<Int.random(in: 1...60, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined())
            }
        }
        return values
    }

    /// Every interval in `policy` is in (0, the maximum from outside], every count at least 1.
    static func isInRange(_ policy: FlushPolicy) -> Bool {
        switch policy {
        case .manual: return true
        case .count(let n): return n >= 1
        case .interval(let t): return t > .zero && t <= .maximumFromOutside
        case .any(let policies): return policies.allSatisfy(isInRange)
        }
    }

    @Test func hostileNumbersGiveATypedRefusalOrAPolicyInRange() {
        var refused = 0
        for number in Self.numbers(seed: 0xF1_05) {
            for template in ["every %s", "%ss", "%sms", "%sm", "%sh", "%smin", "count %s", "%s events", "count 3 or every %ss"] {
                let text = template.replacingOccurrences("%s", with: number)
                do {
                    let policy = try FlushPolicy(parsing: text)
                    #expect(Self.isInRange(policy), "\(text) -> \(policy)")
                    // What it reads as parses back to the same policy.
                    #expect((try? FlushPolicy(parsing: policy.description)) == policy, "\(text) -> \(policy.description)")
                } catch {
                    refused += 1
                    #expect(error.description.contains(text), "the refusal names the text: \(error)")
                }
            }
        }
        #expect(refused > 1000, "the generator must reach the refusals: \(refused)")
    }

    @Test(arguments: ["every 1e300s", "1e16h", "every 1e400s", "every 9223372036854775807s", "99999999999999999999ms", "count 1 or 1e300m"])
    func outOfRangeIntervalsAreRefusedAsOutOfRange(text: String) {
        #expect {
            try FlushPolicy(parsing: text)
        } throws: { error in
            (error as? FlushPolicyParseError)?.reason.contains("out of range") == true
        }
    }

    @Test func parsedDurationsNeverPassTheMaximum() {
        for number in Self.numbers(seed: 0xD0_2A) {
            for unit in ["ms", "s", "sec", "m", "min", "h"] {
                if let duration = FlushPolicy.parseDuration(number + unit) {
                    #expect(duration >= .zero && duration <= .maximumFromOutside, "\(number)\(unit) -> \(duration)")
                }
            }
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

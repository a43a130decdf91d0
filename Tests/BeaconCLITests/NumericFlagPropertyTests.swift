import BeaconWire
import Foundation
import Testing

/// Hostile numbers as command-line text: the fixed extremes, then seeded random ones
/// (huge, tiny, negative, long digit strings, garbage).
enum HostileNumbers {
    static let extremes = [
        "0", "-0", "0.0", "-0.0", "-1", "-1.5", "nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e300", "-1e300",
        "1e-300", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616",
        String(repeating: "9", count: 400), "abc", "", " ", "0x10", "1_000", "12abc", "--", "1e16",
    ]

    static func values(seed: UInt64, count: Int = 12) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var values = extremes
        for _ in 0..<count {
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: values.append(String(Double.random(in: 1e6...1e308, using: &generator)))
            case 1: values.append("-" + String(Int64.random(in: 1...Int64.max, using: &generator)))
            case 2: values.append(String(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &generator)))
            case 3: values.append((0..<Int.random(in: 20...200, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined())
            case 4: values.append(String(-Double.random(in: 1e-6...1e300, using: &generator)))
            default:
                let letters = Array("abcxyz.-+e%$ ")
                values.append(String((0..<Int.random(in: 1...8, using: &generator)).map { _ in letters.randomElement(using: &generator)! }))
            }
        }
        return values
    }

    /// `text` as a number inside `range` (what the flag accepts), read as the parser would.
    static func isInside(_ text: String, _ range: ClosedRange<Double>, integer: Bool) -> Bool {
        if integer {
            guard let value = Int(text) else { return false }
            return range.contains(Double(value))
        }
        guard let value = Double(text), value.isFinite else { return false }
        return range.contains(value)
    }
}

/// Every numeric flag of the command line, fed hostile numbers: each is refused with exit 2
/// and one line on stderr naming the flag; none crashes the process.
@Suite("Numeric flags", .timeLimit(.minutes(5)))
struct NumericFlagPropertyTests {
    struct Flag: Sendable, CustomStringConvertible {
        var command: [String]
        var flag: String
        var accepted: ClosedRange<Double>
        var integer: Bool
        var description: String { "\(command.first ?? "") \(flag)" }
    }

    static let db = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-numeric-flags.sqlite").path

    static let flags: [Flag] = [
        Flag(command: ["track", "--db", db], flag: "--count", accepted: 0...10_000_000, integer: true),
        Flag(command: ["flush", "--db", db, "--endpoint", "log:"], flag: "--timeout", accepted: 1e-9...316_224_000, integer: false),
        Flag(command: ["flush", "--db", db, "--endpoint", "log:"], flag: "--batch-size", accepted: 1...10_000, integer: true),
        Flag(command: ["flush", "--db", db, "--endpoint", "log:"], flag: "--max-failures", accepted: 1...1_000, integer: true),
        Flag(command: ["sync", "--db", db, "--from", "/nonexistent/feed.json"], flag: "--timeout", accepted: 1e-9...3600, integer: false),
        Flag(command: ["status", "--db", db], flag: "--batches", accepted: 0...1_000, integer: true),
        Flag(command: ["monitor", "--db", db], flag: "--interval-ms", accepted: 20...10_000, integer: true),
        Flag(command: ["collector"], flag: "--port", accepted: 0...65_535, integer: true),
        Flag(command: ["collector"], flag: "--max-event-bytes", accepted: 1...16_777_216, integer: true),
        Flag(command: ["collector"], flag: "--max-request-bytes", accepted: 1...268_435_456, integer: true),
        Flag(command: ["collector"], flag: "--max-events", accepted: 1...1_000_000, integer: true),
        Flag(command: ["collector"], flag: "--max-batch-events", accepted: 1...1_000_000, integer: true),
        Flag(command: ["collector"], flag: "--fail-rate", accepted: 0...1, integer: false),
        Flag(command: ["collector"], flag: "--throttle-rate", accepted: 0...1, integer: false),
        Flag(command: ["collector"], flag: "--hang-rate", accepted: 0...1, integer: false),
        Flag(command: ["collector"], flag: "--reset-rate", accepted: 0...1, integer: false),
        Flag(command: ["collector"], flag: "--retry-after", accepted: 0...86_400, integer: true),
        Flag(command: ["collector"], flag: "--latency-ms", accepted: 0...60_000, integer: true),
        Flag(command: ["collector"], flag: "--hang-seconds", accepted: 0...300, integer: false),
        Flag(command: ["demo"], flag: "--batch-size", accepted: 1...10_000, integer: true),
        Flag(command: ["demo"], flag: "--rate", accepted: 0...100_000, integer: true),
        Flag(command: ["demo"], flag: "--destinations", accepted: 1...2, integer: true),
        Flag(command: ["demo"], flag: "--max-concurrent-requests", accepted: 1...16, integer: true),
        Flag(command: ["agent", "--db", db, "--endpoint", "http://127.0.0.1:9"], flag: "--max-concurrent-requests", accepted: 1...16, integer: true),
        Flag(command: ["bench"], flag: "--events", accepted: 1...100_000_000, integer: true),
        Flag(command: ["bench"], flag: "--runs", accepted: 1...1_000, integer: true),
        Flag(command: ["bench"], flag: "--gzip-level", accepted: 1...9, integer: true),
        Flag(command: ["bench"], flag: "--concurrency", accepted: 1...16, integer: true),
        Flag(command: ["bench"], flag: "--drain-events", accepted: 1...10_000_000, integer: true),
        Flag(command: ["bench"], flag: "--latency-events", accepted: 1...10_000_000, integer: true),
    ]

    @Test(arguments: flags)
    func outOfRangeNumbersAreRefusedWithOneLine(flag: Flag) async throws {
        let values = HostileNumbers.values(seed: 0xBEAC0 &+ UInt64(flag.description.utf8.count))
        let invocations = values.filter { !HostileNumbers.isInside($0, flag.accepted, integer: flag.integer) }
            .map { flag.command + [flag.flag, $0] }
        let results = try await BeaconProcess.runAll(invocations)
        #expect(results.count == invocations.count)
        for (arguments, result) in zip(invocations, results) {
            try Self.expectRefusal(result, arguments: arguments, naming: flag.flag)
        }
        #expect(invocations.count >= 25, "\(flag): only \(invocations.count) hostile values were outside the accepted range")
    }

    /// The edges of 1...16 and the extremes the brief names, for each flag that sets a
    /// destination's requests in flight.
    @Test func requestsInFlightOutsideOneToSixteenAreRefused() async throws {
        let commands: [([String], String)] = [
            (["demo"], "--max-concurrent-requests"),
            (["agent", "--db", Self.db, "--endpoint", "http://127.0.0.1:9"], "--max-concurrent-requests"),
            (["bench", "drain"], "--concurrency"),
        ]
        let values = ["0", "-1", "17", "9223372036854775807", "1e300", "nan", "NaN", "abc", "16.5", ""]
        let invocations = commands.flatMap { command, flag in values.map { (command + [flag, $0], flag) } }
        let results = try await BeaconProcess.runAll(invocations.map(\.0))
        #expect(results.count == invocations.count)
        for ((arguments, flag), result) in zip(invocations, results) {
            try Self.expectRefusal(result, arguments: arguments, naming: flag)
        }
    }

    /// `--durability` takes its two names only: anything else, a number among them, is
    /// refused with one line naming the flag.
    @Test func durabilityOtherThanItsTwoNamesIsRefused() async throws {
        let commands: [[String]] = [
            ["track", "--db", Self.db],
            ["agent", "--db", Self.db, "--endpoint", "http://127.0.0.1:9"],
        ]
        let values = ["", "full", "POWER-LOSS", "power-loss ", "2", "-1", "1e300", "nan", "power\u{0}loss", "processCrash"]
        let invocations = commands.flatMap { command in values.map { command + ["--durability", $0] } }
        let results = try await BeaconProcess.runAll(invocations)
        #expect(results.count == invocations.count)
        for (arguments, result) in zip(invocations, results) {
            try Self.expectRefusal(result, arguments: arguments, naming: "--durability")
        }
    }

    @Test func endpointPortsOutsideOneTo65535AreRefused() async throws {
        var generator = SeededGenerator(seed: 65_536)
        var ports = ["0", "65536", "99999", "9223372036854775807", "18446744073709551616", String(repeating: "9", count: 60)]
        for _ in 0..<6 { ports.append(String(Int.random(in: 65_536...Int.max, using: &generator))) }
        let invocations = ports.map { ["flush", "--db", Self.db, "--endpoint", "http://127.0.0.1:\($0)"] }
        let results = try await BeaconProcess.runAll(invocations)
        #expect(results.count == invocations.count)
        for (arguments, result) in zip(invocations, results) {
            try Self.expectRefusal(result, arguments: arguments, naming: "--endpoint")
        }
    }

    /// Flush policies and durations with hostile numbers: refused with exit 2, or accepted
    /// and then stopped for want of a terminal (exit 1); never a crash.
    @Test func hostileNumbersInPoliciesAndIntervalsNeverCrash() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-numeric-config.json").path
        try Data(#"{"settings": {}}"#.utf8).write(to: URL(fileURLWithPath: config))
        var cases: [(number: String, template: String, arguments: [String])] = []
        for number in HostileNumbers.values(seed: 0x9011C7, count: 8) {
            for template in ["every %s", "%ss", "%sms", "%sh", "count %s", "%s events", "count 5 or %sm"] {
                let text = template.replacingOccurrences(of: "%s", with: number)
                for arguments in [["demo", "--policy", text], ["demo", "--config", config, "--config-interval", text]] {
                    cases.append((number, template, arguments))
                }
            }
        }
        let results = try await BeaconProcess.runAll(cases.map(\.arguments))
        #expect(results.count == cases.count)
        for ((number, template, arguments), result) in zip(cases, results) {
            #expect(!result.signalled && !result.stderr.contains("Fatal error"), "\(arguments): crashed: \(result.stderr)")
            #expect(result.status == 1 || result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            // A duration out of range (a count may legitimately be huge).
            let isDuration = !template.contains("count %s") && !template.contains("events")
            if isDuration || arguments.contains("--config-interval"), let value = Double(number),
                !value.isFinite || abs(value) > 1e12 || value < 0
            {
                #expect(result.status == 2, "\(arguments) must be refused: \(result.stderr)")
            }
        }
    }

    static func expectRefusal(_ result: BeaconProcess.Result, arguments: [String], naming flag: String) throws {
        #expect(!result.signalled && !result.stderr.contains("Fatal error"), "\(arguments): crashed: \(result.stderr)")
        #expect(result.status == 2, "\(arguments): exit \(result.status), \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(arguments): one line, got \(result.stderr)")
        #expect(result.stderr.contains(flag), "\(arguments): the line must name \(flag): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        // A value the flag's type cannot read says what the flag wants (its help), not
        // only ArgumentParser's "The value 'x' is invalid for '--flag <flag>'".
        if result.stderr.hasPrefix("beacon: The value "), !result.stderr.contains("Please provide one of") {
            #expect(!result.stderr.contains(">' (see 'beacon help')") && result.stderr.contains(">': "),
                    "\(arguments): the line must say what \(flag) takes: \(result.stderr)")
        }
    }
}

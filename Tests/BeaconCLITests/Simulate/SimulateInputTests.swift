import Beacon
import BeaconSimulation
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `beacon simulate` with a scenario that cannot hold, with bad files and bad flags: exit
/// 1 naming the failed checks, exit 2 naming the line and the field.
@Suite struct SimulateInputTests {
    /// A short scenario: one offline second with a burst, then the drain. `expect` goes in as given.
    static func scenario(expect: String) -> String {
        """
        {
          "name": "short <outage> & \\"quotes\\"",
          "seed": 4,
          "collectors": [ { "name": "main" } ],
          "steps": [
            { "name": "offline", "seconds": 1, "rate": 20, "offline": true, "burst": 100 }
          ],
          "drainTimeoutSeconds": 20,
          "expect": \(expect)
        }
        """
    }

    static func write(_ text: String) throws -> String {
        let path = try BeaconProcess.temporaryDirectory() + "/scenario.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func anImpossibleExpectationExitsOneAndNamesIt() async throws {
        let file = try Self.write(Self.scenario(expect: #"{ "drainedWithinSeconds": 0.001, "maxDepth": 0, "deadLetters": 0 }"#))
        let directory = try BeaconProcess.temporaryDirectory() + "/run"
        let chart = try BeaconProcess.temporaryDirectory() + "/chart.svg"
        let junit = try BeaconProcess.temporaryDirectory() + "/simulate.xml"
        let result = try await BeaconProcess.run(
            ["simulate", file, "--dir", directory, "--chart", chart, "--junit", junit], stdinBytes: nil, limit: .seconds(120))
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("2 checks did not hold: maxDepth, drainedWithinSeconds"), "\(result.stderr)")
        #expect(result.stdout.contains("FAIL  drainedWithinSeconds"), "\(result.stdout)")
        #expect(result.stdout.contains("ok    deadLetters"), "\(result.stdout)")
        #expect(result.stdout.contains("FAILED: 2 of"), "\(result.stdout)")
        // The invariants still hold: a failed expectation is not a lost event.
        #expect(!result.stdout.contains("FAIL  accounted-for"), "\(result.stdout)")
        // The chart is written even so, and is well-formed XML naming the step.
        let svg = try Data(contentsOf: URL(fileURLWithPath: chart))
        let parser = XMLParser(data: svg)
        #expect(parser.parse(), "the chart is not well-formed XML")
        #expect(String(decoding: svg, as: UTF8.self).contains("short &lt;outage&gt; &amp;"))
        // The JUnit file a CI system reads: a case per check, the two that failed with their detail.
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(XMLParser(data: Data(xml.utf8)).parse(), "not well-formed: \(xml)")
        let checksPrinted = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  ok    ") || $0.hasPrefix("  FAIL  ") }.count
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == checksPrinted, "\(xml)")
        #expect(xml.components(separatedBy: "<failure ").count - 1 == 2, "\(xml)")
        #expect(xml.contains(#"name="drainedWithinSeconds""#) && xml.contains(#"<testsuites name="beacon simulate""#))
        #expect(xml.contains("short &lt;outage&gt; &amp;"), "the scenario's name, escaped")
        // A failed run keeps its files.
        #expect(FileManager.default.fileExists(atPath: directory + "/report.json"))
    }

    @Test func aDestinationsOwnExpectationIsCheckedAndNamed() async throws {
        let file = try Self.write(Self.scenario(expect: #"{ "destinations": { "main": { "drainedWithinSeconds": 0.001, "deadLetters": 0, "delivered": 120 } } }"#))
        let result = try await BeaconProcess.run(["simulate", file], stdinBytes: nil, limit: .seconds(120))
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("1 checks did not hold: destinations.main.drainedWithinSeconds"), "\(result.stderr)")
        #expect(result.stdout.contains("ok    destinations.main.deadLetters"), "\(result.stdout)")
        #expect(result.stdout.contains("ok    destinations.main.delivered  events stored at main: 120"), "\(result.stdout)")
        #expect(result.stdout.contains("  main: stored 120, dead letters 0"), "\(result.stdout)")
    }

    @Test(arguments: [
        // (file text, what stderr must name)
        ("{\n  \"name\": \"x\",\n  \"collectors\": [ { \"name\": \"main\" } ],,\n}", ":3:"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"rate\": 20", with: "\"rate\": \"fast\""), ":6:"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"rate\": 20", with: "\"rate\": 1e300"), "steps[0].rate"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"rate\": 20", with: "\"rate\": -1"), "steps[0].rate"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"burst\": 100", with: "\"burst\": 1.5"), "steps[0].burst"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"seed\": 4", with: "\"seed\": 18446744073709551616"), "seed"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"offline\": true", with: "\"ofline\": true"), "did you mean 'offline'"),
        (scenario(expect: #"{ "drainedWithinSeconds": NaN }"#), ":9:"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"seed\": 4,", with: "\"seed\": 4, \"engine\": { \"policy\": \"sometimes\" },"), "engine.policy"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"seed\": 4,", with: "\"seed\": 4, \"engine\": { \"policy\": \"sometimes\" },"), ":3:"),
        // The engine takes 1...16 in flight: more is a line of the file, not an agent that fails at start.
        (scenario(expect: "{}").replacingOccurrences(of: "\"seed\": 4,", with: "\"seed\": 4, \"engine\": { \"maxConcurrentRequests\": 17 },"), "engine.maxConcurrentRequests"),
        (scenario(expect: "{}").replacingOccurrences(of: "\"seed\": 4,", with: "\"seed\": 4, \"engine\": { \"maxConcurrentRequests\": 64 },"), ":3:"),
        ("", ":1:"),
        ("{\"name\": \"a\u{0}b\"}", ":1:"),
    ])
    func aMalformedFileExitsTwoNamingTheLine(text: String, named: String) async throws {
        let file = try Self.write(text)
        let result = try await BeaconProcess.run(["simulate", file], stdinBytes: nil, limit: .seconds(30))
        #expect(result.status == 2, "\(text): \(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains(named), "\(text): \(result.stderr)")
        #expect(result.stderr.contains(file), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// The scenario reader cannot import the engine; its range for requests in flight is
    /// the engine's, or a scenario it accepts fails at start (or one it refuses would run).
    @Test func theReadersConcurrencyRangeIsTheEngines() {
        #expect(ScenarioEngine.maxConcurrentRequestsRange == Destination.maxConcurrentRequestsRange)
    }

    @Test func invalidUTF8IsAnErrorWithALine() async throws {
        let path = try BeaconProcess.temporaryDirectory() + "/scenario.json"
        try Data([0x7B, 0x0A, 0x22, 0x6E, 0xFF, 0x22, 0x3A, 0x31, 0x7D]).write(to: URL(fileURLWithPath: path))
        let result = try await BeaconProcess.run(["simulate", path], stdinBytes: nil, limit: .seconds(30))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(":2:"), "\(result.stderr)")
    }

    @Test(arguments: [
        ["--time-scale", "0"], ["--time-scale", "nan"], ["--time-scale", "1e300"], ["--time-scale", "-5"],
        ["--seed", "-1"], ["--seed", "1.5"], ["--log-level", "loud"], ["--chart", "/nonexistent/run.svg"],
        ["--chart", "/tmp/"], ["--chart", "/tmp"],
    ])
    func badFlagsExitTwo(flags: [String]) async throws {
        let file = try Self.write(Self.scenario(expect: "{}"))
        let result = try await BeaconProcess.run(["simulate", file] + flags, stdinBytes: nil, limit: .seconds(30))
        #expect(result.status == 2, "\(flags): \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    /// `--watch` without a terminal (a CI log): a line a second on stderr naming the step,
    /// every sample in `DIR/samples.jsonl` as it was taken, the running step in `DIR/step`.
    @Test func watchWithoutATerminalTellsTheSamples() async throws {
        let file = try Self.write(
            Self.scenario(expect: "{}").replacingOccurrences(
                of: #"{ "name": "offline", "seconds": 1, "rate": 20, "offline": true, "burst": 100 }"#,
                with: #"{ "name": "offline", "seconds": 1.5, "rate": 20, "offline": true, "burst": 100 }, { "name": "back", "seconds": 1.5, "rate": 20 }"#))
        let directory = try BeaconProcess.temporaryDirectory() + "/run"
        let result = try await BeaconProcess.run(["simulate", file, "--watch", "--dir", directory], stdinBytes: nil, limit: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let told = result.stderr.split(separator: "\n").filter { $0.contains(" s step ") }
        #expect(told.contains { $0.contains("step 1/2 offline: depth") }, "\(result.stderr)")
        #expect(told.contains { $0.contains("step 2/2 back: depth") }, "\(result.stderr)")
        let lines = try String(contentsOfFile: directory + "/samples.jsonl", encoding: .utf8).split(separator: "\n")
        let report = try JSONDecoder().decode(SimulationReport.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/report.json")))
        // The file holds the report's samples, each with its step.
        #expect(lines.count == report.timeline.samples.count, "\(lines.count) lines, \(report.timeline.samples.count) samples")
        struct Line: Decodable { var step: Int; var stepName: String; var sample: SimulationTimeline.Sample }
        let decoded = try lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        #expect(decoded.map(\.sample) == report.timeline.samples)
        #expect(Set(decoded.map(\.step)) == [1, 2, 3] && decoded.last?.stepName == "drain")
        #expect(decoded.allSatisfy { $0.sample.depth == nil || $0.sample.destinations?["main"] != nil })
        #expect(try String(contentsOfFile: directory + "/step", encoding: .utf8) == "drain after 2 steps\n")
    }

    /// Three runs started at once on one empty `--dir`: one takes it, the others exit 2
    /// without touching its stores.
    @Test func runsRacingForOneDirectoryGetItOnce() async throws {
        let file = try Self.write(Self.scenario(expect: "{}"))
        let directory = try BeaconProcess.temporaryDirectory()
        let statuses = try await withThrowingTaskGroup(of: BeaconProcess.Result.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await BeaconProcess.run(["simulate", file, "--dir", directory], stdinBytes: nil, limit: .seconds(120))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.map(\.status).sorted() == [0, 2, 2], "\(statuses.map(\.stderr))")
        #expect(statuses.filter { $0.status == 2 }.allSatisfy { !$0.stderr.isEmpty })
    }

    @Test func aMissingFileOrABadDirectoryExitsTwo() async throws {
        let missing = try await BeaconProcess.run(["simulate", "/nonexistent/scenario.json"], stdinBytes: nil)
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/scenario.json"), "\(missing.stderr)")
        let file = try Self.write(Self.scenario(expect: "{}"))
        let full = try BeaconProcess.temporaryDirectory()
        try "x".write(toFile: full + "/left-over", atomically: true, encoding: .utf8)
        let notEmpty = try await BeaconProcess.run(["simulate", file, "--dir", full], stdinBytes: nil)
        #expect(notEmpty.status == 2 && notEmpty.stderr.contains("not empty"), "\(notEmpty.stderr)")
        let aFile = try await BeaconProcess.run(["simulate", file, "--dir", full + "/left-over"], stdinBytes: nil)
        #expect(aFile.status == 2 && aFile.stderr.contains("is a file"), "\(aFile.stderr)")
    }
}

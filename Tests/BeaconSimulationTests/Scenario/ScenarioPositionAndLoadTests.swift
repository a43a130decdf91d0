import Foundation
import Testing

@testable import BeaconSimulation

@Suite struct ScenarioPositionAndLoadTests {
    /// A pretty-printed scenario whose line 17 is `"rate": RATE`.
    static func lineSeventeen(rate: String) -> String {
        """
        {
          "name": "positions",
          "description": "one key a line",
          "collectors": [
            {
              "name": "main"
            }
          ],
          "steps": [
            {
              "name": "warm-up",
              "seconds": 5,
              "rate": 10
            },
            {
              "seconds": 5,
              "rate": \(rate)
            }
          ]
        }
        """
    }

    @Test func aWrongValueOnLineSeventeenIsReportedOnLineSeventeen() {
        #expect(ScenarioFixtures.error(Self.lineSeventeen(rate: "20")) == nil)
        let lines = Self.lineSeventeen(rate: "RATE").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[16] == "      \"rate\": RATE")
        let error = ScenarioFixtures.error(Self.lineSeventeen(rate: "\"fast\""))
        #expect(error == ScenarioError(
            line: 17, column: 15, field: "steps[1].rate",
            message: "found the string \"fast\"; expected a number of events per second, 0 to 100000"))
        #expect(error?.described(file: "train.json")
            == "train.json:17:15: steps[1].rate: found the string \"fast\"; expected a number of events per second, 0 to 100000")
        #expect(ScenarioFixtures.error(Self.lineSeventeen(rate: "1e999")) == .syntax(17, 15, "number '1e999' is too large to be represented"))
        #expect(ScenarioFixtures.error(Self.lineSeventeen(rate: "20,")) == .syntax(17, 17, "trailing comma before '}'"))
        let unknown = ScenarioFixtures.error(Self.lineSeventeen(rate: "20").replacingOccurrences(of: "\"rate\": 20", with: "\"rat\": 20"))
        #expect(unknown == ScenarioError(line: 17, column: 7, field: "steps[1].rat", message: "unknown field 'rat' in steps[1]; did you mean 'rate'?"))
    }

    @Test func aWrongValueInTheExampleIsReportedOnItsLine() {
        let tunnel = ScenarioFixtures.example.replacingOccurrences(
            of: #"{ "name": "tunnel", "seconds": 10, "rate": 200,"#,
            with: #"{ "name": "tunnel", "seconds": 10, "rate": "fast","#)
        #expect(ScenarioFixtures.error(tunnel)?.line == 20)
        #expect(ScenarioFixtures.error(tunnel)?.column == 48)
    }

    @Test func syntaxAndNestedFieldErrorsInTheExampleKeepTheirLines() {
        let trailing = ScenarioFixtures.example.replacingOccurrences(of: #""durability": "process-crash""#, with: #""durability": "process-crash","#)
        #expect(ScenarioFixtures.error(trailing) == .syntax(12, 34, "trailing comma before '}'"))
        let share = ScenarioFixtures.example.replacingOccurrences(of: #""failRate": 0.3"#, with: #""failRate": 1.3"#)
        let shareError = ScenarioFixtures.error(share)
        #expect(shareError?.line == 21)
        #expect(shareError?.field == "steps[2].faults.main.failRate")
        let paused = ScenarioFixtures.example.replacingOccurrences(of: #"["warehouse"]"#, with: #"["warehose"]"#)
        let pausedError = ScenarioFixtures.error(paused)
        #expect(pausedError?.line == 24)
        #expect(pausedError?.field == "steps[5].paused[0]")
        let expect = ScenarioFixtures.example.replacingOccurrences(of: #""dropped": 0 }"#, with: #""droped": 0 }"#)
        let expectError = ScenarioFixtures.error(expect)
        #expect(expectError?.line == 28)
        #expect(expectError?.message == "unknown field 'droped' in expect; did you mean 'dropped'?")
    }

    @Test func descriptionForms() {
        let field = ScenarioError(line: 3, column: 9, field: "engine.batchSize", message: "found 0; expected …")
        #expect(field.description == "3:9: engine.batchSize: found 0; expected …")
        #expect(field.described(file: "a.json") == "a.json:3:9: engine.batchSize: found 0; expected …")
        let syntax = ScenarioError(line: 1, column: 2, field: "", message: "trailing comma before ']'")
        #expect(syntax.described(file: "a.json") == "a.json:1:2: trailing comma before ']'")
        let file = ScenarioError(line: 0, column: 0, field: "", message: "cannot read the scenario file: no such file")
        #expect(file.described(file: "a.json") == "a.json: cannot read the scenario file: no such file")
        #expect("\(file)" == "cannot read the scenario file: no such file")
    }

    /// A fresh directory for one test.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func loadReadsAFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("train.json")
        try Data(ScenarioFixtures.example.utf8).write(to: file)
        let scenario = try Scenario.load(path: file.path)
        #expect(scenario == (try ScenarioFixtures.parse(ScenarioFixtures.example)))
    }

    @Test func loadReportsMissingDirectoryAndOversizedFiles() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("nope.json").path
        #expect(throws: ScenarioError(line: 0, column: 0, field: "", message: "cannot read the scenario file: no such file")) {
            try Scenario.load(path: missing)
        }
        #expect(throws: ScenarioError(line: 0, column: 0, field: "", message: "cannot read the scenario file: it is a directory")) {
            try Scenario.load(path: directory.path)
        }
        let big = directory.appendingPathComponent("big.json")
        try Data(Array(ScenarioFixtures.minimal.utf8) + Array(repeating: UInt8(ascii: " "), count: 2 * 1_048_576)).write(to: big)
        #expect(throws: ScenarioError.syntax(1, 1, "the file is larger than 1 MiB (1048576 bytes), the most a scenario may be")) {
            try Scenario.load(path: big.path)
        }
        let bad = directory.appendingPathComponent("bad.json")
        try Data("{\"collectors\":[{\"name\":\"a\"}],\"steps\":[{\"seconds\":1}],\n  \"name\": 5\n}".utf8).write(to: bad)
        #expect(throws: ScenarioError.self) { try Scenario.load(path: bad.path) }
        do {
            _ = try Scenario.load(path: bad.path)
        } catch {
            #expect(error.line == 2 && error.column == 11 && error.field == "name")
        }
    }

    @Test func unreadableFileSaysSo() throws {
        guard getuid() != 0 else { return }  // root reads anything
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("locked.json")
        try Data(ScenarioFixtures.minimal.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
        #expect(throws: ScenarioError(line: 0, column: 0, field: "", message: "cannot read the scenario file: it cannot be opened (permission denied?)")) {
            try Scenario.load(path: file.path)
        }
    }
}

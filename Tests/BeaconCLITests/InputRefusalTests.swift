import Foundation
import Testing

/// Input the command line refuses instead of repairing or misreporting: invalid UTF-8 on
/// stdin or in arguments, an invalid address to bind, a store path that cannot be.
@Suite("Input refusals", .timeLimit(.minutes(2)))
struct InputRefusalTests {
    @Test func invalidUTF8OnStdinIsRefusedByLineAndNothingRepairedIsStored() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        var input = Data(#"{"event":"ok","userId":"u"}"#.utf8) + Data([0x0A])
        input += Data(#"{"event":"caf"#.utf8) + Data([0xE9, 0x20, 0xFF]) + Data(#"","userId":"u"}"#.utf8) + Data([0x0A])
        let result = try await BeaconProcess.run(["track", "--db", db, "--stdin", "--print-ids"], stdinBytes: input)
        #expect(result.status == 2, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("beacon: line 2: not valid UTF-8") == true, "\(result.stderr)")
        #expect(!result.stderr.contains("line 1:"), "\(result.stderr)")

        let out = "\(directory)/out.ndjson"
        let flush = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", "file://\(out)"])
        #expect(flush.status == 0, "\(flush.stderr)")
        let sent = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!sent.contains("\u{FFFD}"), "a repaired event was stored: \(sent)")
        #expect(sent.split(separator: "\n").count == 1, "\(sent)")
    }

    @Test(arguments: [
        ("--name", #"--name "$(printf 'caf\351')""#),
        ("--prop", #"--prop "$(printf 'plan=\377')""#),
        ("--prop", #""--prop=$(printf 'k=\300\200')""#),
        ("--user-id", #"--user-id "$(printf 'u\355\240\200')""#),
    ])
    func invalidUTF8InAnArgumentIsRefusedNamingTheFlag(flag: String, shellArgument: String) async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        // Process takes Strings, which cannot hold invalid UTF-8: a shell builds the argument.
        let script = #"exec "$0" track --db "$1" "# + shellArgument
        let result = try await BeaconProcess.run(["-c", script, BeaconProcess.path, db], stdinBytes: nil, executable: "/bin/sh")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(flag) is not valid UTF-8"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db), "nothing may be stored")
    }

    @Test(arguments: ["999.1.1.1", "1.2.3", "::zz", "256.0.0.1"])
    func anInvalidAddressToBindIsCalledInvalid(host: String) async throws {
        let result = try await BeaconProcess.run(["collector", "--host", host, "--port", "0"], stdinBytes: nil, limit: .seconds(20))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("--host") && result.stderr.contains("not a valid"), "\(result.stderr)")
        #expect(!result.stderr.contains("free"), "\(result.stderr)")
    }

    /// The collector binds as the agent does, `--listen HOST:PORT`, or by `--host` and
    /// `--port`; never both (one would be ignored in silence).
    @Test func theCollectorTakesListenAsTheAgentDoes() async throws {
        for (arguments, says) in [
            (["--listen", "127.0.0.1:0", "--port", "0"], "not both"), (["--listen", "127.0.0.1:0", "--host", "::1"], "not both"),
            (["--listen", "x"], "is not HOST:PORT"), (["--listen", "127.0.0.1:70000"], "is not 0...65535"),
            (["--listen", "999.1.1.1:0"], "not a valid"),
            (["--listen", String(repeating: "a", count: 100_000) + ":1"], "(100000 bytes)"),
            (["--host", String(repeating: "b", count: 100_000)], "(100000 bytes)"),
        ] {
            let result = try await BeaconProcess.run(["collector"] + arguments, stdinBytes: nil, limit: .seconds(20))
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(says), "\(arguments): \(result.stderr.prefix(300))")
            #expect(result.stderr.utf8.count < 400, "a refused value is not echoed whole: \(result.stderr.utf8.count) bytes")
        }
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let collector = try RunningCollector(arguments: [], directory: directory, bind: ["--listen", "127.0.0.1:0"])
        defer { collector.stop() }
        let address = try await collector.address()
        #expect(address.hasPrefix("http://127.0.0.1:") && address != "http://127.0.0.1:0", "\(address)")
    }

    @Test(arguments: [
        ["track", "--db", "/proc/nope/x"],
        ["flush", "--db", "/proc/nope/x", "--endpoint", "log:"],
        ["status", "--db", "/proc/nope/x"],
        ["sync", "--db", "/proc/nope/x", "--from", "/dev/null"],
        ["collector", "--db", "/proc/nope/x", "--port", "0"],
    ])
    func aStorePathThatCannotBeIsNamedWithTheReason(arguments: [String]) async throws {
        let result = try await BeaconProcess.run(arguments, stdinBytes: nil, limit: .seconds(20))
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("/proc/nope/x"), "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("/proc/nope does not exist"), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("SQLite error"), "\(arguments): \(result.stderr)")
    }

    @Test("a line past the line limit on --stdin is skipped unread, named by its length; the lines around it are stored")
    func aHugeLineIsSkippedByLength() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        // 40 MB on one line, as a JSON array dumped whole would be.
        var input = Data(#"{"event":"before","userId":"u"}"#.utf8) + Data([0x0A])
        input += Data(#"{"event":"huge","userId":"u","properties":{"x":""#.utf8)
        input += Data(repeating: UInt8(ascii: "a"), count: 40_000_000)
        input += Data(#""}}"#.utf8) + Data([0x0A])
        input += Data(#"{"event":"after","userId":"u"}"#.utf8) + Data([0x0A])
        let result = try await BeaconProcess.run(["track", "--db", db, "--stdin"], stdinBytes: input)
        #expect(result.status == 2, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stderr)")
        let expected = "beacon: line 2: 40000051 bytes long, over the 1048576 a line may hold "
            + "(an event is at most 32768 bytes once encoded); skipped"
        #expect(lines.first.map(String.init) == expected, "\(result.stderr)")
        #expect(result.stdout.contains("queued 2 events"), "\(result.stdout)")
    }

    /// A line from text, with `byte` in place of each `~`.
    static func line(_ text: String, _ byte: UInt8 = 0) -> Data {
        Data(text.utf8.map { $0 == UInt8(ascii: "~") ? byte : $0 })
    }

    static let unholdable: [(line: Data, reason: String)] = [
        (line(#"{"event":"a~b","userId":"u"}"#), "a raw control character (0x00) at byte 12"),
        (line(#"{"event":"a","userId":"u","properties":{"v":1e400}}"#), "a number beyond ±1.8e308"),
        (line(#"{"event":"a","userId":"u","properties":{"v":-1e400}}"#), "a number beyond ±1.8e308"),
        (line(#"{"event":"a","userId":"u","properties":{"v":"a~b"}}"#, 0x09), "raw tab"),
        (line("nul"), "a syntax error"),
        (line(String(repeating: "[", count: 600) + String(repeating: "]", count: 600)), "nested past 512 levels"),
    ]

    @Test("JSON that no event can hold is refused saying why, not 'not a JSON value'", arguments: unholdable)
    func unholdableJSONIsNamed(line: Data, reason: String) async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let result = try await BeaconProcess.run(["track", "--db", "\(directory)/q.sqlite", "--stdin"], stdinBytes: line + Data([0x0A]))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("beacon: line 1: input is not valid JSON: "), "\(result.stderr)")
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        #expect(!result.stderr.contains("not a JSON value") && !result.stderr.contains("The given data"), "\(result.stderr)")
    }
}

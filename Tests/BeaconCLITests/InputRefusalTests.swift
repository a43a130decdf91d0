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
}

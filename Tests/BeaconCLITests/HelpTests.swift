import Foundation
import Testing

/// `beacon --help`, `beacon help` and every subcommand's help: printed on stdout, exit 0,
/// with the usage line and every flag the command takes.
@Suite("Help", .timeLimit(.minutes(2)))
struct HelpTests {
    /// Each subcommand with the flags its help must name.
    static let subcommands: [(String, [String])] = [
        ("demo", ["--policy", "--batch-size", "--rate", "--db", "--catalogue", "--config", "--destinations", "--config-interval",
                  "--max-concurrent-requests"]),
        ("monitor", ["--db", "--interval-ms"]),
        ("collector", ["--host", "--port", "--db", "--write-key", "--max-event-bytes", "--fail-rate", "--faults", "--log-level"]),
        ("track", ["--db", "--name", "--prop", "--count", "--user-id", "--anonymous-id", "--stdin", "--print-ids",
                   "--durability", "process-crash", "power-loss"]),
        ("flush", ["--db", "--endpoint", "--write-key", "--batch-size", "--max-failures", "--timeout"]),
        ("status", ["--db", "--json", "--batches"]),
        ("ctl", ["--db", "--json", "--timeout-ms", "status", "flush", "offline", "online", "policy", "batch-size"]),
        ("sync", ["--db", "--from", "--timeout"]),
        ("simulate", ["--json", "--chart", "--watch", "--time-scale", "--seed", "--dir", "FORMAT.md"]),
        ("bench", ["--json", "--events", "--runs", "--memory-events", "--drain-events", "--latency-events", "--gzip-level", "--concurrency"]),
    ]

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func rootHelpListsTheSubcommands(arguments: [String]) async throws {
        let result = try await BeaconProcess.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stdout.contains("USAGE: beacon"), "\(arguments): \(result.stdout)")
        for (name, _) in Self.subcommands {
            #expect(result.stdout.contains(name), "\(arguments): no '\(name)' in \(result.stdout)")
        }
        #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
    }

    @Test(arguments: subcommands.map(\.0))
    func subcommandHelpNamesItsFlagsAndDefaults(name: String) async throws {
        let flags = try #require(Self.subcommands.first { $0.0 == name }?.1)
        for arguments in [[name, "--help"], [name, "-h"], ["help", name]] {
            let result = try await BeaconProcess.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: beacon \(name)"), "\(arguments): \(result.stdout)")
            for flag in flags {
                #expect(result.stdout.contains(flag), "\(arguments): no \(flag) in \(result.stdout)")
            }
            #expect(result.stdout.contains("(default:"), "\(arguments): no defaults in \(result.stdout)")
            #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            #expect(Self.brokenSentences(result.stdout).isEmpty, "\(arguments): a line break mid-sentence: \(Self.brokenSentences(result.stdout))")
        }
    }

    /// Short lines followed by a line that goes on with the sentence: a hard line break
    /// left in a help text (the wrapper then cuts the paragraph there).
    static func brokenSentences(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        return zip(lines, lines.dropFirst()).compactMap { line, next in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, text.count < 40, !text.hasSuffix(":"), next.first?.isLowercase == true else { return nil }
            return "\(text) / \(next)"
        }
    }

    /// A group's subcommands answer `--help` with their own help, even without the
    /// option the group needs to run (`dead` needs `--db`).
    @Test(arguments: [
        (["dead", "list"], ["--json", "--limit"]), (["dead", "show"], ["<id>"]), (["dead", "retry"], ["--all"]),
        (["dead", "purge"], ["--all", "--yes"]), (["dead", "export"], ["--out"]),
    ])
    func groupSubcommandHelpIsItsOwn(path: [String], flags: [String]) async throws {
        for arguments in [path + ["--help"], path + ["-h"], ["help"] + path, ["dead", "--db", "x.sqlite"] + path.dropFirst() + ["--help"]] {
            let result = try await BeaconProcess.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: beacon dead --db FILE \(path[1])"), "\(arguments): \(result.stdout)")
            for flag in flags {
                #expect(result.stdout.contains(flag), "\(arguments): no \(flag) in \(result.stdout)")
            }
            #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        }
    }
}

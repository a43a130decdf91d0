import Foundation
import Testing

/// The README's command table, the control protocol's verbs and `--help` say the same
/// things: every subcommand `beacon --help` lists is in the README's table with the
/// options its own `--help` gives, every verb `ctl --help` names and every command of the
/// wire protocol is in the README, and the dead-letter verbs point to `beacon dead`.
@Suite("README, control verbs and --help agree")
struct ReadmeAgreementTests {
    static func readme() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The README's command table rows (lines starting with `` | `beacon ``).
    static func commandRows(_ readme: String) -> [String] {
        readme.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| `beacon") }
    }

    @Test func everySubcommandIsInTheTableWithTheOptionsItsHelpGives() async throws {
        let readme = try Self.readme()
        let rows = Self.commandRows(readme)
        let help = try await BeaconProcess.run(["--help"])
        #expect(help.status == 0)
        let subcommands = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst().prefix { !$0.isEmpty }
            .compactMap { line -> String? in
                let trimmed = line.drop { $0 == " " }
                guard line.hasPrefix("  "), !line.hasPrefix("          "), let word = trimmed.split(separator: " ").first else { return nil }
                return String(word)
            }
        #expect(subcommands.count >= 11, "\(help.stdout)")
        // Options a row need not repeat: shared by many commands, described once below the table.
        let shared: Set<String> = [
            "--help", "--log-level", "--timeout-ms", "--json", "--max-queue-events", "--max-queue-bytes", "--durability",
            "--write-key", "--interval-ms",
        ]
        for subcommand in subcommands {
            let mentioned = rows.filter { $0.contains("`beacon \(subcommand)") }
            #expect(!mentioned.isEmpty, "README's table has no row for beacon \(subcommand)")
            guard ["monitor", "dead", "ctl", "status", "flush"].contains(subcommand) else { continue }
            let own = try await BeaconProcess.run([subcommand, "--help"])
            let options = Set(own.stdout.split(whereSeparator: { " ,\n[]()|=".contains($0) })
                .map(String.init).filter { $0.hasPrefix("--") && $0.count > 3 }.map { $0.split(separator: "<").first.map(String.init) ?? $0 })
            for option in options.subtracting(shared) {
                #expect(readme.contains(option), "beacon \(subcommand) --help has \(option); the README does not")
            }
        }
    }

    @Test func everyControlVerbIsInTheReadmeAndCtlHelp() async throws {
        let readme = try Self.readme()
        let ctl = try await BeaconProcess.run(["ctl", "--help"])
        for verb in ["status", "flush", "offline", "online", "policy", "batch-size", "pause", "resume", "retry-now", "watch"] {
            #expect(ctl.stdout.contains(verb), "ctl --help names \(verb)")
            #expect(readme.contains("`\(verb)") || readme.contains(" \(verb) ") , "README names the verb \(verb)")
        }
        for verb in ["dead-list", "dead-show", "dead-retry", "dead-purge", "dead-export", "watch"] {
            #expect(readme.contains("`\(verb)"), "README's wire format names \(verb)")
        }
        #expect(readme.contains(#"{"matching":{"destination""#), "the bulk selection by search is documented")
        // The wire's dead-letter verbs have their own command: ctl says where.
        let dead = try await BeaconProcess.run(["ctl", "--db", "/tmp/none.sqlite", "dead-list"])
        #expect(dead.status == 2 && dead.stderr.contains("beacon dead"), "\(dead.stderr)")
        let deadHelp = try await BeaconProcess.run(["dead", "--help"])
        for verb in ["list", "show", "retry", "purge", "export"] {
            #expect(deadHelp.stdout.contains(verb), "dead --help names \(verb)")
            #expect(readme.contains("beacon dead --db FILE \(verb)"), "README's table has beacon dead \(verb)")
        }
    }
}

import Foundation
import Testing

/// `docs/cli.md`, `docs/operating.md`, the README's command table and `--help` say the
/// same things: every subcommand `beacon --help` lists has one section in docs/cli.md
/// naming every option its own `--help` gives (and its verbs' options), and one row in the
/// README's table; every verb of `ctl --help` and of the control protocol is in
/// docs/operating.md; the dead-letter verbs point to `beacon dead`.
@Suite("docs, control verbs and --help agree")
struct HelpAgreementTests {
    static func read(_ relative: String) throws -> String { try DocsAgreementTests.read(relative) }

    /// The names under `SUBCOMMANDS:` in a help text.
    static func subcommands(_ help: String) -> [String] {
        help.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst().prefix { !$0.isEmpty }
            .compactMap { line -> String? in
                let trimmed = line.drop { $0 == " " }
                guard line.hasPrefix("  "), !line.hasPrefix("          "), let word = trimmed.split(separator: " ").first else { return nil }
                return String(word)
            }
    }

    /// Every `--option` a help text declares: the first long name of each line of its
    /// option lists (`  --policy <policy>   …`, `  -h, --help   …`), not those its prose
    /// mentions.
    static func options(_ help: String) -> Set<String> {
        Set(help.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  -"), !line.hasPrefix("   ") else { return nil }
            return line.split(whereSeparator: { " ,".contains($0) }).first { $0.hasPrefix("--") }.map(String.init)
        })
    }

    /// docs/cli.md's sections, by their `## beacon SUB` heading; `## Shared options` too.
    static func sections(_ page: String) -> [String: [String]] {
        var found: [String: [String]] = [:]
        var current: String?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                current = String(line.dropFirst(3)).replacingOccurrences(of: "`", with: "")
                found[current!, default: []].append("")
            } else if let current {
                found[current]![found[current]!.count - 1] += line + "\n"
            }
        }
        return found
    }

    @Test func everySubcommandHasOneSectionNamingEveryOptionOfItsHelp() async throws {
        let cli = try Self.read("docs/cli.md")
        let sections = Self.sections(cli)
        let readmeRows = try Self.read("README.md").split(separator: "\n").filter { $0.hasPrefix("| `beacon") }
        let root = try await BeaconProcess.run(["--help"])
        #expect(root.status == 0)
        let subcommands = Self.subcommands(root.stdout)
        #expect(subcommands.count >= 13, "\(root.stdout)")
        let shared = Set((sections["Shared options"] ?? []).joined().split(whereSeparator: { " ,\n[]()|=`".contains($0) })
            .map(String.init).filter { $0.hasPrefix("--") })
        for subcommand in subcommands {
            let heading = "beacon \(subcommand)"
            let section = sections[heading] ?? []
            #expect(section.count == 1, "docs/cli.md has \(section.count) sections '## \(heading)'")
            #expect(readmeRows.contains { $0.contains("`beacon \(subcommand)") }, "the README's command table has no row for beacon \(subcommand)")
            let text = section.joined()
            let own = try await BeaconProcess.run([subcommand, "--help"])
            var helps = [own.stdout]
            for verb in Self.subcommands(own.stdout) where verb != "help" {
                #expect(text.contains(verb), "docs/cli.md's \(heading) does not name its verb \(verb)")
                helps.append(try await BeaconProcess.run([subcommand, verb, "--help"]).stdout)
            }
            for option in helps.map(Self.options).reduce(into: Set<String>(), { $0.formUnion($1) }).subtracting(["--help"]) {
                #expect(text.contains("`\(option)") || shared.contains(option), "beacon \(subcommand) --help has \(option); its section in docs/cli.md does not")
            }
        }
        for option in Self.options(root.stdout).subtracting(["--help"]) {
            #expect(cli.contains("`\(option)"), "beacon --help has \(option); docs/cli.md does not")
        }
    }

    @Test func everyControlVerbIsInTheOperatingPageAndCtlHelp() async throws {
        let operating = try Self.read("docs/operating.md")
        let ctl = try await BeaconProcess.run(["ctl", "--help"])
        for verb in ["status", "flush", "offline", "online", "policy", "batch-size", "pause", "resume", "retry-now", "watch"] {
            #expect(ctl.stdout.contains(verb), "ctl --help names \(verb)")
            #expect(operating.contains("`\(verb)"), "docs/operating.md names the verb \(verb)")
        }
        for verb in ["dead-list", "dead-show", "dead-retry", "dead-purge", "dead-export", "watch"] {
            #expect(operating.contains("`\(verb)"), "docs/operating.md's wire format names \(verb)")
        }
        #expect(operating.contains(#"{"matching":{"destination""#), "the bulk selection by search is documented")
        // The wire's dead-letter verbs have their own command: ctl says where.
        let dead = try await BeaconProcess.run(["ctl", "--db", "/tmp/none.sqlite", "dead-list"])
        #expect(dead.status == 2 && dead.stderr.contains("beacon dead"), "\(dead.stderr)")
        let deadHelp = try await BeaconProcess.run(["dead", "--help"])
        let cli = try Self.read("docs/cli.md")
        for verb in ["list", "show", "retry", "purge", "export"] {
            #expect(deadHelp.stdout.contains(verb), "dead --help names \(verb)")
            #expect(cli.contains("beacon dead --db FILE \(verb)"), "docs/cli.md shows beacon dead \(verb)")
        }
    }
}

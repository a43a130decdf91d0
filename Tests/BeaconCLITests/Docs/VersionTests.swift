import BeaconWire
import Foundation
import Testing

/// Which build answers: `beacon --version` and `beacon version` print it, and a running
/// agent and a collector report it in `/health`, `/metrics` (`beacon_build_info`),
/// `ctl status` and `beacon status`; completion scripts and the man page are generated
/// from the same help.
@Suite("beacon --version, the version of a running engine, completions and the man page", .timeLimit(.minutes(2)))
struct VersionTests {
    @Test func versionFlagAndCommandPrintTheVersion() async throws {
        #expect(BeaconVersion.current.split(separator: ".").count == 3 && BeaconVersion.current.allSatisfy { $0.isNumber || $0 == "." })
        for arguments in [["--version"], ["version"]] {
            let result = try await BeaconProcess.run(arguments)
            #expect(result.status == 0 && result.stdout == BeaconVersion.current + "\n" && result.stderr.isEmpty, "\(arguments): \(result)")
        }
        let help = try await BeaconProcess.run(["--help"])
        #expect(help.stdout.contains("--version") && help.stdout.contains("--generate-completion-script"), "\(help.stdout)")
        // The changelog's newest release is this version.
        let changelog = try DocsAgreementTests.read("CHANGELOG.md")
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## [") }
        #expect(newest?.hasPrefix("## [\(BeaconVersion.current)]") == true, "\(newest ?? "no release in CHANGELOG.md")")
    }

    @Test("A running agent and its collector say which build they are")
    func runningEngineReportsItsVersion() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let (collector, collectorBase) = try await AgentCommandTests.diskCollector(in: directory)
        defer { collector.stop() }
        let store = directory + "/agent.sqlite"
        let agent = try RunningAgent(store: store, endpoints: [collectorBase], directory: directory)
        defer { agent.stop() }
        let base = try await agent.address()
        let buildInfo = #"beacon_build_info{version="\#(BeaconVersion.current)"} 1"#
        for server in [base, collectorBase] {
            let health = try await HTTPAnswer.send("GET", server + "/health")
            let json = try JSONSerialization.jsonObject(with: Data(health.text.utf8)) as? [String: Any]
            #expect(health.status == 200 && json?["version"] as? String == BeaconVersion.current, "\(server): \(health.text)")
            let metrics = try await HTTPAnswer.send("GET", server + "/metrics").text
            #expect(metrics.contains(buildInfo), "\(server): \(AgentMetricsTests.lines(metrics, "beacon_build_info"))")
            #expect(metrics.contains("# HELP beacon_build_info "), "\(server)")
        }
        let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(status.status == 0 && report?["version"] as? String == BeaconVersion.current, "\(status.stdout)")
        let text = try await BeaconProcess.run(["ctl", "--db", store, "status"])
        #expect(text.stdout.contains("version      \(BeaconVersion.current)\n"), "\(text.stdout)")
        let storeStatus = try await BeaconProcess.run(["status", "--db", store])
        #expect(storeStatus.stdout.contains("beacon \(BeaconVersion.current)"), "\(storeStatus.stdout)")
    }

    @Test("Completion scripts for bash, zsh and fish name every subcommand")
    func completionScripts() async throws {
        let help = try await BeaconProcess.run(["--help"])
        let subcommands = HelpAgreementTests.subcommands(help.stdout)
        for shell in ["bash", "zsh", "fish"] {
            let script = try await BeaconProcess.run(["--generate-completion-script", shell])
            #expect(script.status == 0 && script.stderr.isEmpty, "\(shell): \(script.stderr)")
            #expect(script.stdout.count > 1_000, "\(shell): \(script.stdout.prefix(200))")
            for subcommand in subcommands { #expect(script.stdout.contains(subcommand), "\(shell) completes no \(subcommand)") }
        }
        let bad = try await BeaconProcess.run(["--generate-completion-script", "powershell"])
        #expect(bad.status == 2, "\(bad)")
        // One readable line naming the shells, not ArgumentParser's lines with escaped breaks.
        #expect(bad.stderr.split(separator: "\n").count == 1 && !bad.stderr.contains("\\u{"), "\(bad.stderr)")
        #expect(bad.stderr.contains("zsh bash fish"), "\(bad.stderr)")
    }

    /// The committed man page is swift-argument-parser's `generate-manual` output for this
    /// binary (docs/cli.md says how to make it again): every subcommand and option of the
    /// help is in it.
    @Test func manPageNamesEverySubcommandAndOption() async throws {
        let page = try DocsAgreementTests.read("docs/man/beacon.1")
        let help = try await BeaconProcess.run(["--help"])
        for subcommand in HelpAgreementTests.subcommands(help.stdout) where subcommand != "help" {
            #expect(page.contains(subcommand), "the man page has no \(subcommand)")
            let own = try await BeaconProcess.run([subcommand, "--help"])
            for option in HelpAgreementTests.options(own.stdout).subtracting(["--help"]) {
                // mdoc writes `--flag` as `Fl -flag` (the macro adds the first dash).
                #expect(page.contains("Fl \(option.dropFirst())"), "the man page has no \(option) of \(subcommand)")
            }
        }
    }
}

import ArgumentParser
import BeaconWire
#if canImport(Glibc)
import Glibc
#endif

/// `beacon`: the composition root. Each subcommand lives in its own file.
@main
struct BeaconCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon",
        abstract: "Durable event tracking: an engine, its collector and a live dashboard.",
        discussion: """
            Shell completions: 'beacon --generate-completion-script bash|zsh|fish' (docs/cli.md says where each goes). \
            The manual: docs/cli.md, and 'man ./docs/man/beacon.1' in a clone.
            """,
        version: BeaconVersion.current,
        subcommands: [
            DemoCommand.self, MonitorCommand.self, CollectorCommand.self, TrackCommand.self, FlushCommand.self,
            StatusCommand.self, EventsCommand.self, CtlCommand.self, DeadCommand.self, AgentCommand.self, SyncCommand.self,
            BenchCommand.self, SimulateCommand.self, PlanCommand.self, VersionCommand.self,
        ],
        defaultSubcommand: DemoCommand.self
    )

    /// Runs the command with the exit codes of the contract: 0 success, 1 runtime
    /// failure, 2 bad usage or bad input; errors in one line on stderr.
    static func main() async {
        Output.ignoreBrokenPipes()
        if let argument = UTF8Check.firstInvalidArgument() {
            Output.error("beacon: \(argument) is not valid UTF-8; pass text in UTF-8 (see 'beacon help')")
            Glibc.exit(2)
        }
        let command: any ParsableCommand
        // `bench NAME` takes its name as an argument, which swift-argument-parser fills
        // before it looks for a subcommand: `bench ingest` and `bench agent` are routed here.
        let arguments = Array(CommandLine.arguments.dropFirst())
        let routed = BenchCommand.configuration.subcommands.first { sub in
            sub.configuration.commandName.map { arguments.starts(with: ["bench", $0]) } ?? false
        }
        do {
            if let routed {
                command = try routed.parseAsRoot(Array(arguments.dropFirst(2)))
            } else {
                command = try parseAsRoot()
            }
        } catch {
            if exitCode(for: error) == .success { exitAfterHelp(for: error, routed: routed) }
            // One line, as every error is: ArgumentParser breaks some of its messages in lines.
            let text = (routed.map { $0.message(for: error) } ?? message(for: error))
                .split(separator: "\n").map { $0.trimmingPrefix(while: \.isWhitespace) }.joined(separator: " ")
            let hinted = Self.hinted(
                text, arguments: routed == nil ? arguments : Array(arguments.dropFirst(2)), root: routed ?? BeaconCommand.self)
            Output.error("beacon: \(hinted) (see 'beacon help')")
            Glibc.exit(2)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
            // A command whose output was lost (stdout on a full disk) did not succeed.
            if let failure = Output.failure {
                Output.error("beacon: cannot write to standard output: \(failure)")
                Glibc.exit(1)
            }
            Glibc.exit(0)
        } catch let error as CLIError {
            Output.error("beacon: \(error.message)")
            Glibc.exit(error.exitCode)
        } catch let error as ValidationError {
            Output.error("beacon: \(error.message)")
            Glibc.exit(2)
        } catch {
            // `beacon help [SUB]` parses as a command whose run() throws the help request.
            if exitCode(for: error) == .success { exitAfterHelp(for: error, routed: routed) }
            Output.error("beacon: \(message(for: error))")
            Glibc.exit(1)
        }
    }

    /// Prints the help (or other clean-exit text) a parse or a `help` command asked for on
    /// stdout, and exits 0.
    /// A subcommand `routed` here and parsed as a root gets the help of its whole path
    /// (`USAGE: beacon bench agent`), not the one of a root.
    private static func exitAfterHelp(for error: any Error, routed: (any ParsableCommand.Type)?) -> Never {
        exitAfterHelp(text: routed.map { helpMessage(for: $0) } ?? fullMessage(for: error))
    }

    private static func exitAfterHelp(text: String) -> Never {
        if !text.isEmpty { Output.raw(text.hasSuffix("\n") ? String(text.dropLast()) : text) }
        Glibc.exit(0)
    }
}

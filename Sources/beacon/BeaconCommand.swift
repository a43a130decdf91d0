import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `beacon`: the composition root. Each subcommand lives in its own file.
@main
struct BeaconCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon",
        abstract: "Durable event tracking: an engine, its collector and a live dashboard.",
        subcommands: [
            DemoCommand.self, MonitorCommand.self, CollectorCommand.self, TrackCommand.self, FlushCommand.self,
            StatusCommand.self, SyncCommand.self, BenchCommand.self,
        ],
        defaultSubcommand: DemoCommand.self
    )

    /// Runs the command with the exit codes of the contract: 0 success, 1 runtime
    /// failure, 2 bad usage or bad input; errors in one line on stderr.
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            Output.error("beacon: \(message(for: error)) (see 'beacon help')")
            Glibc.exit(2)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
            Glibc.exit(0)
        } catch let error as CLIError {
            Output.error("beacon: \(error.message)")
            Glibc.exit(error.exitCode)
        } catch let error as ValidationError {
            Output.error("beacon: \(error.message)")
            Glibc.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .success { Glibc.exit(0) }
            Output.error("beacon: \(message(for: error))")
            Glibc.exit(1)
        }
    }
}

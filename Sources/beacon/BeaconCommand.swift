import ArgumentParser

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
}

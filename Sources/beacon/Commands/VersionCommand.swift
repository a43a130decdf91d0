import ArgumentParser
import BeaconWire

/// `beacon version`: the same line as `beacon --version`, for those who type it as a word.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print Beacon's version (as beacon --version does).",
        discussion: """
            A running engine reports its own: 'beacon ctl --db FILE status' (version), \
            GET /health ("version") and /metrics (beacon_build_info{version="…"} 1) of an agent or a collector.
            """
    )

    func run() throws {
        Output.line(BeaconVersion.current)
    }
}

import ArgumentParser

/// A benchmark that `bench all` runs as a subcommand, with its defaults, its run count and
/// its output.
protocol PostingBenchCommand: AsyncParsableCommand {}

extension PostingBenchCommand {
    /// The command `bench all` runs.
    static func forAll(runs: Int, json: Bool) throws -> Self {
        try parse(["--runs", String(runs)] + (json ? ["--json"] : []))
    }
}

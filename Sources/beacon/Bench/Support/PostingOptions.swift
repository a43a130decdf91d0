import ArgumentParser
import Beacon

/// The flags of the benchmarks whose clients post Segment batches to a server process
/// (`bench ingest`, `bench agent`): the workload, the runs and the output.
struct PostingOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Events posted per run (1...10000000).")
    var events = 100_000

    @Option(parsing: .unconditional, help: "Events per request (1...1000).")
    var batchSize = 500

    @Option(parsing: .unconditional, help: "Runs of each setting (the medians are reported; 1...1000).")
    var runs = 5

    @Option(parsing: .unconditional, help: "gzip level of the bodies, 1 (fastest) to 9 (smallest); 0 posts them plain.")
    var gzipLevel = Gzip.defaultLevel

    @Flag(help: "Print the figures as JSON on stdout, one object per line.")
    var json = false

    /// The ranges the options accept, and `--clients`'.
    static let eventCounts = 1...10_000_000, batchSizes = 1...1_000, runCounts = 1...1_000, gzipLevels = 0...9, clientCounts = 1...256

    func validate() throws {
        try Self.check("--events", events, in: Self.eventCounts)
        try Self.check("--batch-size", batchSize, in: Self.batchSizes)
        try Self.check("--runs", runs, in: Self.runCounts)
        try Self.check("--gzip-level", gzipLevel, in: Self.gzipLevels, note: " (0: plain bodies)")
    }

    /// The workload these options describe, encoded (and gzipped) once.
    func workload() throws -> IngestWorkload {
        try IngestWorkload(events: events, batchSize: batchSize, gzipLevel: gzipLevel)
    }

    /// Refuses `value` of `flag` outside `range`, naming both.
    static func check(_ flag: String, _ value: Int, in range: ClosedRange<Int>, note: String = "") throws {
        guard range.contains(value) else {
            throw ValidationError("\(flag) must be \(range.lowerBound)...\(range.upperBound)\(note), not \(value)")
        }
    }
}

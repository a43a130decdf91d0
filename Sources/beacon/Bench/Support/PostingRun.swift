import BeaconWire

/// One run of a benchmark whose clients post batches to a server process (`bench ingest`,
/// `bench agent`): its rate and its baseline's over the same rows, its latencies, and the
/// CPU each side used.
struct PostingRun: Sendable {
    /// Events stored per second through the servers: first request to last answer.
    var eventsPerSecond: Double
    /// The baseline's rows per second for the same rows.
    var baselineRowsPerSecond: Double
    /// `bench agent`'s second baseline: the same insert with SQLite's automatic
    /// checkpoint on (``QueueInsertBaseline/LogCopy/automatic``); `nil` elsewhere.
    var copyingBaselineRowsPerSecond: Double?
    var p50Milliseconds: Double
    var p99Milliseconds: Double
    /// CPU seconds the server processes used while the clients posted (`nil`: unknown).
    var serverCPUSeconds: Double?
    /// CPU seconds this process (the clients) used meanwhile.
    var clientCPUSeconds: Double

    /// The figures of `outcome`, `events` posted, against a baseline that stored
    /// `baselineRows` rows in `baseline`.
    init(events: Int, outcome: IngestClients.Outcome, baselineRows: Int, baseline: Duration) {
        let sorted = outcome.latenciesMilliseconds.sorted()
        eventsPerSecond = Double(events) / outcome.elapsed.inSeconds
        baselineRowsPerSecond = Double(baselineRows) / baseline.inSeconds
        p50Milliseconds = BenchmarkStatistics.percentile(sorted, 0.5)
        p99Milliseconds = BenchmarkStatistics.percentile(sorted, 0.99)
        serverCPUSeconds = outcome.serverCPUSeconds
        clientCPUSeconds = outcome.clientCPUSeconds
    }

    /// The median of the runs' server CPU, when every run knows it.
    static func medianServerCPU(_ runs: [PostingRun]) -> Double? {
        let known = runs.compactMap(\.serverCPUSeconds)
        guard !known.isEmpty, known.count == runs.count else { return nil }
        return BenchmarkStatistics.median(known)
    }

    /// Seconds of CPU for a line of text: two decimals, or `unknown`.
    static func cpuText(_ seconds: Double?) -> String {
        seconds.map { String(round2($0)) } ?? "unknown"
    }
}

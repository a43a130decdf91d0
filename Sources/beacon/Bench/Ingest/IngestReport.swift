import BeaconWire
import Foundation

/// The figures of one `beacon bench ingest` setting over its runs: medians, the ratio to
/// the baseline measured in the same runs, and how they print.
struct IngestReport {
    var store: String
    var collectors: Int
    var clients: Int
    var events: Int
    var batchSize: Int
    var runs: [PostingRun]
    /// The machine's cores, and its 1-minute load average before and after the runs.
    var cores = ProcessInfo.processInfo.activeProcessorCount
    var loadBefore: Double?
    var loadAfter: Double?

    /// Events stored per second through the collectors: the median of the runs.
    var figure: Double { BenchmarkStatistics.median(runs.map(\.eventsPerSecond)) }
    /// The database's own rows per second for the same rows: the median of the runs.
    var baseline: Double { BenchmarkStatistics.median(runs.map(\.baselineRowsPerSecond)) }
    /// figure / baseline (0 without a baseline).
    var ratio: Double { baseline > 0 ? figure / baseline : 0 }
    /// The ratio the issue asks for.
    static let target = 0.7

    var json: JSONValue {
        func rounded(_ values: [Double]) -> JSONValue { .array(values.map { .double($0.rounded()) }) }
        func milliseconds(_ values: [Double]) -> JSONValue { .array(values.map { .double(round2($0)) }) }
        // The shape of every other figure of `bench --json` (BenchFigure), with the ingest's own details.
        let name = store == "sqlite"
            ? "ingest, \(clients) clients, one collector over a SQLite file"
            : "ingest, \(clients) clients, \(collectors) collector(s) over one PostgreSQL"
        let base = store == "sqlite" ? "raw insert, same rows, one transaction" : "PostgreSQL's multi-row insert, \(clients) connections"
        var object: [String: JSONValue] = [
            "benchmark": "ingest", "figure": .string(name), "unit": "events/s",
            "median": .double(figure.rounded()), "values": rounded(runs.map(\.eventsPerSecond)),
            "baseline": .string(base), "baselineMedian": .double(baseline.rounded()),
            "baselineValues": rounded(runs.map(\.baselineRowsPerSecond)),
            "ratio": .double((ratio * 1000).rounded() / 1000), "target": .string("ratio >= \(Self.target)"),
            "met": .bool(ratio >= Self.target), "runs": .int(runs.count), "cores": .int(cores),
            "details": [
                "store": .string(store), "collectors": .int(collectors), "clients": .int(clients), "events": .int(events),
                "batchSize": .int(batchSize),
                "p50Milliseconds": .double(round2(BenchmarkStatistics.median(runs.map(\.p50Milliseconds)))),
                "p99Milliseconds": .double(round2(BenchmarkStatistics.median(runs.map(\.p99Milliseconds)))),
                "p99MillisecondsPerRun": milliseconds(runs.map(\.p99Milliseconds)),
                "collectorCPUSeconds": PostingRun.medianServerCPU(runs).map { .double(($0 * 1000).rounded() / 1000) } ?? .null,
                "clientCPUSeconds": .double((BenchmarkStatistics.median(runs.map(\.clientCPUSeconds)) * 1000).rounded() / 1000),
            ],
        ]
        if let loadBefore { object["loadAverage1m"] = .double(loadBefore) }
        if let loadAfter, case .object(var details)? = object["details"] {
            details["loadAverageAfter"] = .double(loadAfter)
            object["details"] = .object(details)
        }
        return .object(object)
    }

    var text: [String] {
        let where_ = store == "sqlite" ? "a collector over a SQLite file (WAL)" : "\(collectors) collector(s) over one PostgreSQL"
        let base = store == "sqlite"
            ? "raw insert, same rows, one transaction"
            : "PostgreSQL's multi-row insert, \(clients) connections"
        let load = [loadBefore, loadAfter].compactMap { $0.map { String(format: "%.2f", $0) } }.joined(separator: " → ")
        return [
            "ingest: \(clients) clients posting \(batchSize)-event gzip batches to \(where_), \(events) events, \(runs.count) runs, \(cores) cores, load \(load)",
            "  collector            median \(Int(saturating: figure)) events/s stored, p50 \(round2(BenchmarkStatistics.median(runs.map(\.p50Milliseconds)))) ms, p99 \(round2(BenchmarkStatistics.median(runs.map(\.p99Milliseconds)))) ms",
            "  baseline             median \(Int(saturating: baseline)) rows/s (\(base))",
            "  ratio                \(String(format: "%.2f", ratio)) (target ≥ \(Self.target))",
            "  CPU (median)         collector \(PostingRun.cpuText(PostingRun.medianServerCPU(runs))) s, clients \(round2(BenchmarkStatistics.median(runs.map(\.clientCPUSeconds)))) s",
        ]
    }

    /// The 1-minute load average from `/proc/loadavg`, or `nil` where there is none.
    static func loadAverage() -> Double? {
        // No /proc (not Linux): no figure.
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
            let first = text.split(separator: " ").first
        else { return nil }
        return Double(first)
    }
}

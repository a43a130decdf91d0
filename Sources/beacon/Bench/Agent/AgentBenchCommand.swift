import ArgumentParser
import Beacon
import BeaconWire
import Foundation
import Logging

/// `beacon bench agent`: concurrent clients post Segment batches to a `beacon agent`
/// process, which answers 200 only once the batch is committed to its queue, against the
/// raw insert of the same rows into the same kind of store, measured in the same run.
struct AgentBenchCommand: PostingBenchCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Events per second and MiB/s through a `beacon agent` process, against the raw insert of the same rows.",
        discussion: """
            The agent runs as users run it, in a process of its own: `beacon agent --db FILE --listen 127.0.0.1:0 \
            --policy manual --endpoint log:` over a fresh file in a temporary directory (its queue bounds raised so \
            the run fits; nothing is sent while the clients post, and it is put offline through its control channel \
            before it stops, so no drain follows). --clients clients in this process post --batch-size-event bodies \
            (gzipped at --gzip-level, plain at 0) to POST /v1/batch over kept-alive connections on 127.0.0.1, each \
            taking the next body once its last is answered 200, which the agent sends only after every event of it \
            is committed (WAL; synchronous=NORMAL, or FULL with --durability power-loss). Timed: first request to \
            last answer; afterwards the store must hold every event. \
            Baseline: the same rows (each event's JSON byte for byte, its messageId and name) inserted in this \
            process into a fresh Beacon store on the same disk with the queue's own multi-row insert, in \
            transactions of the queue's largest group commit (1,000 rows), the same synchronous setting, SQLite's \
            automatic checkpoint off while timed: no HTTP, no parsing, no engine. A second baseline, reported \
            (details: ratioToBaselineLogCopied) but not judged, keeps SQLite's automatic checkpoint (every 1,000 \
            log pages), as the agent must: the judged one leaves the copy of its log into the database untimed. \
            Figures, each the median of --runs runs with its baseline, the ratio and the 1-minute load average: \
            events/s (target: ratio >= 0.7), and MiB/s of the events' JSON, uncompressed, without the bodies' \
            {"batch":[…]} around it (target: >= 68 MiB/s, Vector's published figure for a local disk-buffered \
            relay, most of it not synced to disk). Use a release build. 'bench all' runs it last, with its --runs and --json.
            """)

    @Option(parsing: .unconditional, help: "Concurrent clients, each with its own kept-alive connection (1...256).")
    var clients = 16

    @Option(help: DurabilityOption.help)
    var durability: DurabilityOption = .processCrash

    @OptionGroup(title: "Workload and output")
    var posting: PostingOptions

    /// The targets: the agent at 0.7 of the raw insert or better, and 68 MiB/s
    /// (Vector's published figure for a local disk-buffered relay) or more.
    static let ratioTarget = 0.7, mebibytesTarget = 68.0

    func validate() throws {
        try PostingOptions.check("--clients", clients, in: PostingOptions.clientCounts)
    }

    func run() async throws {
        var logger = Logger(label: "beacon.bench")
        logger.logLevel = .critical
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-bench-agent-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: directory) } catch { Output.error("beacon: could not remove \(directory): \(error)") }
        }
        Output.error("bench: agent: encoding \(posting.events) events into \(posting.batchSize)-event bodies...")
        let workload = try posting.workload()
        let baseline = QueueInsertBaseline(workload: workload)
        let benchmark = AgentBenchmark(directory: directory, clients: clients, durability: durability, logger: logger)
        let loadBefore = LoadAverage.oneMinute
        var runs: [PostingRun] = []
        for run in 1...posting.runs {
            let figures = try await benchmark.run(workload, baseline: baseline, run: run)
            runs.append(figures)
            Output.error(
                "bench: agent, \(clients) clients, run \(run)/\(posting.runs): "
                    + "\(Int(saturating: figures.eventsPerSecond)) events/s (p99 \(round2(figures.p99Milliseconds)) ms), "
                    + "baseline \(Int(saturating: figures.baselineRowsPerSecond)) rows/s "
                    + "(log copied as SQLite does: \(figures.copyingBaselineRowsPerSecond.map { String(Int(saturating: $0)) } ?? "unknown")); "
                    + "CPU agent \(PostingRun.cpuText(figures.serverCPUSeconds)) s, clients \(round2(figures.clientCPUSeconds)) s")
        }
        BenchFigure.report(figures(runs, workload: workload, baseline: baseline, loadBefore: loadBefore), json: posting.json)
    }

    /// The two figures of the runs: events/s and MiB/s, each against the baseline.
    func figures(_ runs: [PostingRun], workload: IngestWorkload, baseline: QueueInsertBaseline, loadBefore: Double?) -> [BenchFigure] {
        // The baseline's rows are the workload's events: both rates convert with the same bytes per event.
        let mebibytesPerEvent = Double(workload.eventBytes) / Double(max(1, workload.events)) / 1_048_576
        let baselineName = "raw insert of the same rows into a fresh store in this process, \(baseline.rowsPerTransaction) per transaction, "
            + "same disk and synchronous"
        let setting = "agent ingest, \(clients) clients, 200 after the commit"
        var perSecond = BenchFigure(
            benchmark: "agent", figure: setting, unit: "events/s", values: runs.map(\.eventsPerSecond),
            baseline: baselineName, baselineValues: runs.map(\.baselineRowsPerSecond), target: .ratioAtLeast(Self.ratioTarget))
        var throughput = BenchFigure(
            benchmark: "agent", figure: setting + ", events' JSON uncompressed", unit: "MiB/s", values: runs.map { $0.eventsPerSecond * mebibytesPerEvent },
            baseline: baselineName, baselineValues: runs.map { $0.baselineRowsPerSecond * mebibytesPerEvent }, target: .valueAtLeast(Self.mebibytesTarget))
        var details: [String: JSONValue] = [
            "clients": .int(clients), "events": .int(workload.events), "batchSize": .int(posting.batchSize),
            "gzipLevel": .int(posting.gzipLevel), "durability": .string(durability.rawValue),
            "eventJSONBytes": .int(workload.eventBytes), "wireBytes": .int(workload.wireBytes),
            "baselineRowsPerTransaction": .int(baseline.rowsPerTransaction),
            "p50Milliseconds": .double(round2(BenchmarkStatistics.median(runs.map(\.p50Milliseconds)))),
            "p99Milliseconds": .double(round2(BenchmarkStatistics.median(runs.map(\.p99Milliseconds)))),
            "agentCPUSeconds": PostingRun.medianServerCPU(runs).map { .double(round3($0)) } ?? .null,
            "clientCPUSeconds": .double(round3(BenchmarkStatistics.median(runs.map(\.clientCPUSeconds)))),
            "loadAverageBefore": loadBefore.map { .double(round2($0)) } ?? .null,
            "reference": "68 MiB/s: Vector's published figure for a local disk-buffered relay",
        ]
        // The second baseline, reported, not judged: the log copied as SQLite does by default.
        let copying = runs.compactMap(\.copyingBaselineRowsPerSecond)
        if copying.count == runs.count, !copying.isEmpty {
            let median = BenchmarkStatistics.median(copying)
            details["baselineLogCopied"] = "the same insert with SQLite's automatic checkpoint (every 1,000 log pages), timed"
            details["baselineLogCopiedMedian"] = .int(Int(saturating: median))
            details["ratioToBaselineLogCopied"] = .double(round3(BenchmarkStatistics.median(runs.map(\.eventsPerSecond)) / median))
            details["pairedRatiosToBaselineLogCopied"] = .array(zip(runs, copying).map { .double(round3($0.eventsPerSecond / $1)) })
        }
        perSecond.details = details
        throughput.details = details
        return [perSecond, throughput]
    }
}

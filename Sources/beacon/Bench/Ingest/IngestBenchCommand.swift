import ArgumentParser
import Beacon
import BeaconCollector
import Foundation
import Logging

/// `beacon bench ingest`: concurrent clients post 500-event gzip batches to collectors
/// running as their own processes, against the database's own insert of the same rows,
/// measured in the same run.
struct IngestBenchCommand: PostingBenchCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Events stored per second through collector processes, against the database's own insert of the same rows.",
        discussion: """
            SQLite (default): one `beacon collector --db FILE` process with 4 and 16 clients, against the collector's \
            own insert of the same rows in one transaction. With --store postgres://…: 1 and 2 collectors sharing \
            8 clients, against PostgreSQL's multi-row insert of the same rows over 8 connections. Every run uses a \
            fresh file or schema (dropped afterwards); figures are medians of --runs runs. Use a release build.
            """)

    @Option(help: "PostgreSQL the collectors share, postgres://USER:PASS@HOST:PORT/DB (SQLite files when omitted).")
    var store: String?

    @Option(parsing: .unconditionalSingleValue, help: "Concurrent clients (repeat for several settings; default 4 and 16 for SQLite, 8 for PostgreSQL).")
    var clients: [Int] = []

    @Option(parsing: .unconditionalSingleValue, help: "Collector processes sharing the database (repeat; PostgreSQL only; default 1 and 2).")
    var collectors: [Int] = []

    @Option(parsing: .unconditional, help: "Connections each collector may open to PostgreSQL (--store-pool-size).")
    var storePoolSize = 8

    @OptionGroup(title: "Workload and output")
    var posting: PostingOptions

    /// The ranges the options accept.
    static let collectorCounts = 1...16, poolSizes = 1...1_000

    func validate() throws {
        for count in clients { try PostingOptions.check("--clients", count, in: PostingOptions.clientCounts) }
        for count in collectors { try PostingOptions.check("--collectors", count, in: Self.collectorCounts) }
        if store == nil, collectors.contains(where: { $0 > 1 }) {
            throw ValidationError("--collectors above 1 needs --store postgres://…: collectors cannot share a SQLite file")
        }
        try PostingOptions.check("--store-pool-size", storePoolSize, in: Self.poolSizes)
        if let store {
            do {
                _ = try PostgresStoreConfiguration(url: store)
            } catch {
                throw ValidationError("--store: \(error.message)")
            }
        }
    }

    /// The settings to run, in order: (collectors, clients).
    var settings: [(collectors: Int, clients: Int)] {
        let clientCounts = clients.isEmpty ? (store == nil ? [4, 16] : [8]) : clients
        let collectorCounts = store == nil ? [1] : (collectors.isEmpty ? [1, 2] : collectors)
        return collectorCounts.flatMap { collectors in clientCounts.map { (collectors, $0) } }
    }

    func run() async throws {
        var logger = Logger(label: "beacon.bench")
        logger.logLevel = .critical
        var postgres: PostgresStoreConfiguration?
        if let store {
            do {
                postgres = try PostgresStoreConfiguration(url: store, poolSize: storePoolSize)
            } catch {
                throw CLIError.badInput("--store: \(error.message)")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-bench-ingest-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: directory) } catch { Output.error("beacon: could not remove \(directory): \(error)") }
        }
        let (events, runs) = (posting.events, posting.runs)
        Output.error("bench: ingest: encoding and gzipping \(events) events...")
        let workload = try posting.workload()
        let baseline: StoreBaseline
        do {
            baseline = try StoreBaseline(bodies: workload.plainBodies)
        } catch {
            throw CLIError.runtime("ingest benchmark: \(error.message)")
        }
        for setting in settings {
            let benchmark = IngestBenchmark(
                directory: directory, postgres: postgres, collectors: setting.collectors, clients: setting.clients, logger: logger)
            var report = IngestReport(
                store: postgres == nil ? "sqlite" : "postgres", collectors: setting.collectors, clients: setting.clients,
                events: events, batchSize: posting.batchSize, runs: [], loadBefore: IngestReport.loadAverage())
            for run in 1...runs {
                let figures = try await benchmark.run(workload, baseline: baseline, run: run)
                report.runs.append(figures)
                Output.error(
                    "bench: ingest \(setting.collectors) collector(s) × \(setting.clients) clients, run \(run)/\(runs): "
                        + "\(Int(saturating: figures.eventsPerSecond)) events/s (p99 \(round2(figures.p99Milliseconds)) ms), "
                        + "baseline \(Int(saturating: figures.baselineRowsPerSecond)) rows/s, "
                        + "CPU collector \(PostingRun.cpuText(figures.serverCPUSeconds)) s, clients \(round2(figures.clientCPUSeconds)) s")
            }
            report.loadAfter = IngestReport.loadAverage()
            if posting.json {
                Output.json(report.json.jsonString)
            } else {
                for line in report.text { Output.line(line) }
            }
        }
    }
}

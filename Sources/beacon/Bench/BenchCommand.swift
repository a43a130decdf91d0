import ArgumentParser
import Beacon
@_spi(Benchmarks) import BeaconCollector
import BeaconWire
import Foundation

/// `beacon bench`: the benchmarks. Build with `-c release` for meaningful figures.
///
/// Every figure is the median of `--runs` runs, measured beside its baseline in the same
/// invocation, and reported with the ratio of the two (the targets are ratios: machines
/// differ, a ratio within one run carries across them).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the benchmarks (use a release build: swift run -c release beacon bench).",
        discussion: """
            Names: enqueue (durable enqueue against raw single-row SQLite inserts; with an engine running \
            against a bare tracker; track() latency; memory from 1 to 1M events queued); drain (a 100k-event \
            backlog at batch size 500 to a `beacon collector --db` process, against posting the same bodies \
            raw over one connection); latency (first track to last of 10k events stored at batch size 100, \
            against the same raw posts); events (the queue's head and tail, as `beacon events` and the console's \
            pending view read them, with 1M events pending; and the drain with that view open against without); \
            idle (the console's CPU with 10 idle stores on one screen, against one idle store's dashboard, each \
            on a pseudo-terminal, over --idle-seconds); all (every one). With --json, one JSON object per figure and line: \
            figure, median, values, baseline, baselineMedian, ratio (of the medians; the target is on it), \
            pairedRatios and pairedRatioMedian (run by run), target, met, runs, cores, loadAverage1m. \
            ingest (concurrent clients posting gzip batches to collector processes, against the store's own \
            insert of the same rows: see 'beacon bench ingest --help'); agent (concurrent clients posting to a \
            `beacon agent` process, answered 200 after the commit, against the raw insert of the same rows: \
            events/s and MiB/s; see 'beacon bench agent --help'). all runs ingest and agent last.
            """,
        subcommands: [IngestBenchCommand.self, AgentBenchCommand.self])

    /// The benchmarks `all` runs, in order.
    static var all: [String] { Self().benchmarks.map(\.name) }

    /// Each benchmark's name and what runs it (given the temporary directory) into its
    /// figures. A new benchmark joins `bench NAME` and `bench all` with one line here.
    private var benchmarks: [(name: String, run: (String) async throws -> [BenchFigure])] {
        [("enqueue", runEnqueue), ("drain", runDrain), ("latency", runLatency), ("events", runEvents), ("idle", runIdle)]
    }

    @Argument(help: "Which benchmark: enqueue, drain, latency, events, idle or all (memory: one part of enqueue, in its own process).")
    var name: String = "enqueue"

    @Flag(help: "Print the figures as JSON on stdout, one object per line.")
    var json = false

    @Option(parsing: .unconditional, help: "Events per enqueue run.")
    var events: Int = 200_000

    @Option(parsing: .unconditional, help: "Runs of each figure and of its baseline (the median is reported).")
    var runs: Int = 5

    @Option(parsing: .unconditional, help: "Events queued for the memory figure.")
    var memoryEvents: Int = 1_000_000

    @Option(parsing: .unconditional, help: "Backlog of the drain benchmark.")
    var drainEvents: Int = 100_000

    @Option(parsing: .unconditional, help: "Events of the latency benchmark.")
    var latencyEvents: Int = 10_000

    @Option(parsing: .unconditional, help: "Events queued for the pending-events benchmark (events).")
    var pendingEvents: Int = 1_000_000

    @Option(parsing: .unconditional, help: "Seconds each dashboard of the idle benchmark is measured (1...600).")
    var idleSeconds: Int = 10

    @Option(parsing: .unconditional, help: "The sender's gzip level for drain and latency, 1 (fastest) to 9 (smallest).")
    var gzipLevel: Int = Gzip.defaultLevel

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Batches in flight at once for drain and latency (1...16).",
            discussion: "The engine's maxConcurrentRequests; the raw-POST baselines stay one request in flight."))
    var concurrency: Int = 1

    @Option(help: ArgumentHelp("Run this executable's `collector` command instead of this one's (A/B of two builds).", visibility: .hidden))
    var collectorExecutable: String?

    func validate() throws {
        guard (Self.all + ["memory", "all"]).contains(name) else {
            throw ValidationError("unknown benchmark '\(name)': use \((Self.all + ["ingest", "agent", "all"]).joined(separator: ", "))")
        }
        guard (1...100_000_000).contains(events) else { throw ValidationError("--events must be 1...100000000, not \(events)") }
        guard (1...1_000).contains(runs) else { throw ValidationError("--runs must be 1...1000, not \(runs)") }
        guard (1...100_000_000).contains(memoryEvents) else {
            throw ValidationError("--memory-events must be 1...100000000, not \(memoryEvents)")
        }
        guard (1...10_000_000).contains(drainEvents) else { throw ValidationError("--drain-events must be 1...10000000, not \(drainEvents)") }
        guard (1...10_000_000).contains(latencyEvents) else {
            throw ValidationError("--latency-events must be 1...10000000, not \(latencyEvents)")
        }
        guard (1...10_000_000).contains(pendingEvents) else {
            throw ValidationError("--pending-events must be 1...10000000, not \(pendingEvents)")
        }
        guard (1...600).contains(idleSeconds) else { throw ValidationError("--idle-seconds must be 1...600, not \(idleSeconds)") }
        guard (1...9).contains(gzipLevel) else { throw ValidationError("--gzip-level \(gzipLevel) is not in 1...9") }
        let concurrencies = Destination.maxConcurrentRequestsRange
        guard concurrencies.contains(concurrency) else {
            throw ValidationError("--concurrency must be \(concurrencies.lowerBound)...\(concurrencies.upperBound), not \(concurrency)")
        }
        if let collectorExecutable, !FileManager.default.isExecutableFile(atPath: collectorExecutable) {
            throw ValidationError("--collector-executable \(collectorExecutable) is not an executable file")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: directory) } catch { Output.error("beacon: could not remove \(directory): \(error)") }
        }
        if name == "memory" {
            let stored = try await EnqueueBenchmark.fillForMemory(path: directory + "/memory.sqlite", count: memoryEvents)
            let report: JSONValue = [
                "events": .int(stored), "peakResidentBytes": .int(ProcessMemory.peakResidentBytes ?? -1),
                "residentBytes": .int(ProcessMemory.residentBytes ?? -1),
            ]
            Output.json(report.jsonString)
            return
        }
        for benchmark in benchmarks where name == "all" || name == benchmark.name {
            BenchFigure.report(try await benchmark.run(directory), json: json)
        }
        if name == "all" {
            try await IngestBenchCommand.forAll(runs: runs, json: json).run()
            try await AgentBenchCommand.forAll(runs: runs, json: json).run()
        }
    }

    private func progress(_ line: String) { Output.error("bench: \(line)") }

    // MARK: enqueue

    private func runEnqueue(directory: String) async throws -> [BenchFigure] {
        var benchmark = EnqueueBenchmark(directory: directory)
        benchmark.events = events
        benchmark.runs = runs
        let result = try await benchmark.run { progress($0) }
        progress("memory with 1 and \(memoryEvents) events queued, each in its own process, \(runs) runs...")
        var one: [Double] = []
        var many: [Double] = []
        var oneSettled: [Double] = []
        var manySettled: [Double] = []
        for _ in 1...runs {
            let small = try EnqueueBenchmark.memoryInChildProcess(count: 1)
            let large = try EnqueueBenchmark.memoryInChildProcess(count: memoryEvents)
            one.append(Double(small["peakResidentBytes"]?.intValue ?? -1))
            many.append(Double(large["peakResidentBytes"]?.intValue ?? -1))
            oneSettled.append(Double(small["residentBytes"]?.intValue ?? -1))
            manySettled.append(Double(large["residentBytes"]?.intValue ?? -1))
        }
        let mebibyte = 1_048_576.0
        var enqueue = BenchFigure(
            benchmark: "enqueue", figure: "durable enqueue (track to committed)", unit: "events/s", values: result.engineEventsPerSecond,
            baseline: "raw SQLite: the same rows, one cached single-row INSERT, one transaction", baselineValues: result.rawRowsPerSecond,
            target: .ratioAtLeast(1.0))
        enqueue.details = [
            "events": .int(events), "propertyBytes": .int(result.propertyBytes), "payloadBytes": .int(result.payloadBytes),
        ]
        let running = BenchFigure(
            benchmark: "enqueue", figure: "enqueue with an engine running (manual policy, nothing sent)", unit: "events/s",
            values: result.runningEngineEventsPerSecond, baseline: "a bare Tracker over the same kind of queue",
            baselineValues: result.bareTrackerEventsPerSecond, target: .ratioAtLeast(0.97))
        var latency = BenchFigure(
            benchmark: "enqueue", figure: "track() p99", unit: "µs", values: result.trackP99Microseconds, target: .valueBelow(10))
        latency.details = [
            "p50": .double(round2(BenchmarkStatistics.median(result.trackP50Microseconds))),
            "p999": .double(round2(BenchmarkStatistics.median(result.trackP999Microseconds))),
            "callsPerRun": .int(benchmark.latencyCalls),
        ]
        var memory = BenchFigure(
            benchmark: "enqueue", figure: "peak RSS growth from 1 to \(memoryEvents) events queued (own process)", unit: "MiB",
            values: zip(many, one).map { ($0 - $1) / mebibyte }, target: .valueAtMost(5))
        memory.details = [
            "peakMiBWithOne": .double(round2(BenchmarkStatistics.median(one) / mebibyte)),
            "peakMiBWithMany": .double(round2(BenchmarkStatistics.median(many) / mebibyte)),
            "settledGrowthMiB": .double(round2(BenchmarkStatistics.median(zip(manySettled, oneSettled).map { ($0 - $1) / mebibyte }))),
        ]
        return [enqueue, running, latency, memory]
    }

    // MARK: idle

    private func runIdle(directory: String) async throws -> [BenchFigure] {
        var benchmark = ConsoleIdleBenchmark(directory: directory)
        benchmark.runs = runs
        benchmark.window = .seconds(idleSeconds)
        return [try await benchmark.run { progress($0) }]
    }

    // MARK: events

    /// `beacon events` and the pending view at depth: the head and tail read of a queue of
    /// `--pending-events`, the same with a text only the newest event has (the worst case:
    /// every event is looked at), and the drain with the view open against without.
    private func runEvents(directory: String) async throws -> [BenchFigure] {
        let path = directory + "/pending.sqlite"
        defer { EnqueueBenchmark.remove(path) }
        progress("events: queueing \(pendingEvents) events...")
        let queue = try SQLiteEventQueue(path: path, configuration: {
            var configuration = SQLiteEventQueue.Configuration()
            configuration.maxQueuedEvents = max(pendingEvents, configuration.maxQueuedEvents)
            return configuration
        }())
        let tracker = Tracker(queue: queue)
        for _ in 0..<(pendingEvents - 1) { try tracker.track("Benchmark Event", properties: EnqueueBenchmark.properties) }
        try tracker.track("Benchmark Event", properties: ["marker": "only-the-newest"])
        await queue.waitForPendingWrites()
        _ = await queue.close()
        try StoreRest.checkpoint(path)
        let reader = try StoreReader(path: path)
        var page: [Double] = []
        var grep: [Double] = []
        var listed = 0
        for run in 1...runs {
            progress("events: run \(run) of \(runs)")
            var started = ContinuousClock.now
            let read = try await reader.pendingEvents(PendingEventQuery(limit: 10))
            page.append(started.duration(to: .now).inMillisecondsDouble)
            listed = read.events.count
            guard read.pending == pendingEvents else {
                throw CLIError.runtime("the pending read found \(read.pending) of \(pendingEvents) events")
            }
            started = ContinuousClock.now
            let found = try await reader.pendingEvents(PendingEventQuery(containing: "only-the-newest", limit: 10))
            grep.append(started.duration(to: .now).inMillisecondsDouble)
            guard found.events.count == 1 else { throw CLIError.runtime("the text read found \(found.events.count) events, not 1") }
        }
        var head = BenchFigure(
            benchmark: "events", figure: "head and tail of \(pendingEvents) pending (10 each, beacon events and the view)",
            unit: "ms", values: page, target: .valueBelow(1_000))
        head.details = ["events": .int(pendingEvents), "listed": .int(listed)]
        let text = BenchFigure(
            benchmark: "events", figure: "the same with --grep of a text only the newest has (every event read)", unit: "ms",
            values: grep)
        // The drain with the view open, against without, run in turn.
        var benchmark = delivery
        benchmark.directory = directory
        var open: [Double] = []
        var closed: [Double] = []
        var reads = 0
        var longest = Duration.zero
        for run in 1...runs {
            progress("events: drain with and without the pending view, run \(run) of \(runs)")
            let without = try await benchmark.drain(events: drainEvents, batchSize: 500, run: run)
            let with = try await benchmark.drain(events: drainEvents, batchSize: 500, run: run, pendingView: true)
            closed.append(Double(drainEvents) / without.elapsed.inSeconds)
            open.append(Double(drainEvents) / with.elapsed.inSeconds)
            reads += with.viewReads
            longest = max(longest, with.longestViewRead)
        }
        var drain = BenchFigure(
            benchmark: "events", figure: "drain with the pending view open (a read a second)", unit: "events/s", values: open,
            baseline: "the same drain with no view", baselineValues: closed, target: .ratioAtLeast(0.95))
        drain.details = [
            "viewReads": .int(reads), "longestViewReadMs": .double(round2(longest.inMillisecondsDouble)), "drainEvents": .int(drainEvents),
        ]
        return [head, text, drain]
    }

    // MARK: drain and latency

    private var delivery: DeliveryBenchmark {
        DeliveryBenchmark(
            directory: "", gzipLevel: gzipLevel, concurrency: concurrency, collectorExecutable: collectorExecutable ?? BenchChild.currentExecutable)
    }

    /// What the figure's name says of `--concurrency`: nothing at one request in flight
    /// (the name stays comparable with earlier runs), `, 4 in flight` above.
    private var inFlightSuffix: String { concurrency > 1 ? ", \(concurrency) in flight" : "" }

    private func runDrain(directory: String) async throws -> [BenchFigure] {
        var benchmark = delivery
        benchmark.directory = directory
        progress("drain: collector is \(CollectorProcess.description)")
        var engine: [DeliveryBenchmark.EngineRun] = []
        var raw: [DeliveryBenchmark.RawRun] = []
        var client: [Duration] = []
        var before: [CollectorStages] = []
        var after: [CollectorStages] = []
        for run in 1...runs {
            let engineRun = try await benchmark.drain(events: drainEvents, batchSize: 500, run: run)
            let rawRun = try await benchmark.replay(engineRun.bodies, gzip: true, events: drainEvents, run: run, name: "drain")
            client.append(try await benchmark.clientReplay(engineRun.bodies, events: drainEvents, run: run, name: "drain"))
            engine.append(engineRun)
            raw.append(rawRun)
            before.append(try await CollectorStages(
                bodies: engineRun.bodies, gzipped: true, path: "\(directory)/profile-drain-before-\(run).sqlite", policy: .onCommit(pages: 1_000)))
            after.append(try await CollectorStages(
                bodies: engineRun.bodies, gzipped: true, path: "\(directory)/profile-drain-after-\(run).sqlite", policy: .default))
            progress(
                "drain run \(run)/\(runs): engine \(Int(saturating: Double(drainEvents) / engineRun.elapsed.inSeconds)) events/s "
                    + "(CPU \(Int(saturating: engineRun.engineCPUSeconds * 1000)) ms + collector \(Int(saturating: engineRun.collectorCPUSeconds * 1000)) ms), "
                    + "raw \(Int(saturating: Double(drainEvents) / rawRun.elapsed.inSeconds)) events/s; per batch \(engineRun.stages.text)")
        }
        let plainEvents = min(20_000, drainEvents)
        let plain = try await benchmark.drain(events: plainEvents, batchSize: 500, run: 0, gzip: false)
        var figure = BenchFigure(
            benchmark: "drain", figure: "drain a \(drainEvents)-event backlog, batch 500, gzip \(gzipLevel)\(inFlightSuffix)", unit: "events/s",
            values: engine.map { Double(drainEvents) / $0.elapsed.inSeconds },
            baseline: "raw POST of the same gzipped bodies, back to back over one kept-alive connection",
            baselineValues: raw.map { Double(drainEvents) / $0.elapsed.inSeconds }, target: .ratioAtLeast(0.85))
        figure.details = deliveryDetails(events: drainEvents, engine: engine, raw: raw, client: client, before: before, after: after)
        figure.details["wireBytesPerEventGzip"] = .double(round2(Double(engine.last?.wireBytes ?? 0) / Double(drainEvents)))
        figure.details["wireBytesPerEventPlain"] = .double(round2(Double(plain.wireBytes) / Double(plainEvents)))
        figure.details["plainEventsPerSecond"] = .double((Double(plainEvents) / plain.elapsed.inSeconds).rounded())
        return [figure]
    }

    private func runLatency(directory: String) async throws -> [BenchFigure] {
        var benchmark = delivery
        benchmark.directory = directory
        progress("latency: collector is \(CollectorProcess.description)")
        var engine: [DeliveryBenchmark.EngineRun] = []
        var raw: [DeliveryBenchmark.RawRun] = []
        var client: [Duration] = []
        var before: [CollectorStages] = []
        var after: [CollectorStages] = []
        for run in 1...runs {
            let engineRun = try await benchmark.firstToLast(events: latencyEvents, batchSize: 100, run: run)
            let rawRun = try await benchmark.replay(engineRun.bodies, gzip: true, events: latencyEvents, run: run, name: "latency")
            client.append(try await benchmark.clientReplay(engineRun.bodies, events: latencyEvents, run: run, name: "latency"))
            engine.append(engineRun)
            raw.append(rawRun)
            before.append(try await CollectorStages(
                bodies: engineRun.bodies, gzipped: true, path: "\(directory)/profile-latency-before-\(run).sqlite", policy: .onCommit(pages: 1_000)))
            after.append(try await CollectorStages(
                bodies: engineRun.bodies, gzipped: true, path: "\(directory)/profile-latency-after-\(run).sqlite", policy: .default))
            progress(
                "latency run \(run)/\(runs): engine \(round2(engineRun.elapsed.inSeconds * 1000)) ms (tracking \(round2(engineRun.tracked.inSeconds * 1000)) ms, "
                    + "CPU \(Int(saturating: engineRun.engineCPUSeconds * 1000)) ms + collector \(Int(saturating: engineRun.collectorCPUSeconds * 1000)) ms), "
                    + "raw \(round2(rawRun.elapsed.inSeconds * 1000)) ms; per batch \(engineRun.stages.text)")
        }
        var figure = BenchFigure(
            benchmark: "latency", figure: "first track to last of \(latencyEvents) stored, batch 100, count 100 or 20 ms\(inFlightSuffix)", unit: "s",
            values: engine.map(\.elapsed.inSeconds),
            baseline: "raw POST of the same gzipped bodies, back to back over one kept-alive connection",
            baselineValues: raw.map(\.elapsed.inSeconds), target: .ratioAtMost(1.25))
        figure.details = deliveryDetails(events: latencyEvents, engine: engine, raw: raw, client: client, before: before, after: after)
        figure.details["medianTrackingSeconds"] = .double(round3(BenchmarkStatistics.median(engine.map(\.tracked.inSeconds))))
        return [figure]
    }

    /// CPU, stages and round trips of a delivery benchmark, as JSON details.
    private func deliveryDetails(
        events: Int, engine: [DeliveryBenchmark.EngineRun], raw: [DeliveryBenchmark.RawRun], client: [Duration],
        before: [CollectorStages], after: [CollectorStages]
    ) -> [String: JSONValue] {
        let stages = EngineStages(medianOf: engine.map(\.stages))
        let rawRoundTrip = BenchmarkStatistics.median(raw.map { BenchmarkStatistics.median($0.roundTrips.map(\.inSeconds)) }) * 1000
        let beforeStages = CollectorStages(medianOf: before)
        let afterStages = CollectorStages(medianOf: after)
        progress("  engine stages per batch (median): \(stages.text)")
        let batches = Double(max(1, engine.last?.bodies.count ?? 1))
        let events = Double(max(1, events))
        let statementsPerBatch = BenchmarkStatistics.median(engine.map { Double($0.sqlStatements) / Double(max(1, $0.bodies.count)) })
        let cpuPerEvent = BenchmarkStatistics.median(engine.map(\.engineCPUSeconds)) / events * 1e6
        progress("  SQL statements of the engine's queue per batch (median): \(round2(statementsPerBatch)); engine CPU per event: \(round2(cpuPerEvent)) µs")
        let clientPerBatch = BenchmarkStatistics.median(client.map(\.inSeconds)) / batches * 1000
        progress("  raw POST round trip per batch (median): \(round3(rawRoundTrip)) ms")
        progress("  the engine's HTTP client alone, same bodies one after another (mean per batch): \(round3(clientPerBatch)) ms")
        progress(
            "  engine span (median s): before the first send \(round3(BenchmarkStatistics.median(engine.map(\.beforeFirstSend.inSeconds)))), "
                + "first send to last response \(round3(BenchmarkStatistics.median(engine.map(\.sending.inSeconds)))) "
                + "(sends alone \(round3(BenchmarkStatistics.median(engine.map(\.sendTotal.inSeconds))))), "
                + "after the last response \(round3(BenchmarkStatistics.median(engine.map(\.afterLastSend.inSeconds))))")
        let budget = CPUBudget(engine: engine, raw: raw)
        progress(
            "  CPU budget (median): engine \(round3(budget.engine)) s + its collector \(round3(budget.collector)) s "
                + "(the raw replay's collector \(round3(budget.rawCollector)) s); spread over \(budget.cores) cores "
                + "with none idle, at least \(round3(budget.floorSeconds)) s: \(round3(budget.floorOverRaw))× the raw replay's \(round3(budget.rawSeconds)) s")
        progress("  collector steps, checkpoint on commit (before): \(beforeStages.text)")
        progress("  collector steps, checkpoint in the background (now): \(afterStages.text)")
        return [
            "collector": .string(CollectorProcess.description + (collectorExecutable.map { " (\($0))" } ?? "")),
            "batches": .int(engine.last?.bodies.count ?? 0), "gzipLevel": .int(gzipLevel), "concurrency": .int(concurrency),
            "engineCPUSeconds": .double(round3(BenchmarkStatistics.median(engine.map(\.engineCPUSeconds)))),
            "engineCPUMicrosecondsPerEvent": .double(round2(cpuPerEvent)),
            "sqlStatementsPerBatch": .double(round2(statementsPerBatch)),
            "engineCollectorCPUSeconds": .double(round3(BenchmarkStatistics.median(engine.map(\.collectorCPUSeconds)))),
            "rawCollectorCPUSeconds": .double(round3(BenchmarkStatistics.median(raw.map(\.collectorCPUSeconds)))),
            "engineStageMillisecondsPerBatch": stages.json,
            "engineSpanSeconds": [
                "beforeFirstSend": .double(round3(BenchmarkStatistics.median(engine.map(\.beforeFirstSend.inSeconds)))),
                "firstSendToLastResponse": .double(round3(BenchmarkStatistics.median(engine.map(\.sending.inSeconds)))),
                "sumOfSends": .double(round3(BenchmarkStatistics.median(engine.map(\.sendTotal.inSeconds)))),
                "afterLastResponse": .double(round3(BenchmarkStatistics.median(engine.map(\.afterLastSend.inSeconds)))),
            ],
            "cpuFloorSeconds": .double(round3(budget.floorSeconds)),
            "cpuFloorOverRaw": .double(round3(budget.floorOverRaw)),
            "rawRoundTripMillisecondsPerBatch": .double(round3(rawRoundTrip)),
            "clientReplayMillisecondsPerBatch": .double(round3(clientPerBatch)),
            "collectorStepsMillisecondsPerBatch": ["checkpointOnCommit": beforeStages.json, "checkpointInBackground": afterStages.json],
        ]
    }
}

func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }

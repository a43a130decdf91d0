import ArgumentParser
import Beacon
import BeaconWire
import Foundation

/// `beacon bench`: the benchmarks. Build with `-c release` for meaningful figures.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the benchmarks (use a release build: swift run -c release beacon bench).",
        discussion: """
            Names: enqueue (durable enqueue throughput against raw SQLite inserts, track() latency, \
            memory with 1M events queued); drain (a 100k-event backlog to an in-process collector on \
            127.0.0.1 at batch size 500, and bytes on the wire per event with and without gzip); \
            latency (first track to last of 10k events stored at batch size 100); all (every one).
            """,
        subcommands: [IngestBenchCommand.self])

    @Argument(help: "Which benchmark: enqueue, or memory (one part of enqueue, in its own process).")
    var name: String = "enqueue"

    @Flag(help: "Print the figures as JSON on stdout.")
    var json = false

    @Option(parsing: .unconditional, help: "Events per throughput run.")
    var events: Int = 200_000

    @Option(parsing: .unconditional, help: "Runs per side (the median is reported).")
    var runs: Int = 5

    @Option(parsing: .unconditional, help: "Events queued for the memory figure.")
    var memoryEvents: Int = 1_000_000

    @Option(parsing: .unconditional, help: "The sender's gzip level for drain and latency, 1 (fastest) to 9 (smallest).")
    var gzipLevel: Int = Gzip.defaultLevel

    func validate() throws {
        guard ["enqueue", "memory", "drain", "latency", "all"].contains(name) else {
            throw ValidationError("unknown benchmark '\(name)': use enqueue, drain, latency or all")
        }
        guard (1...100_000_000).contains(events) else { throw ValidationError("--events must be 1...100000000, not \(events)") }
        guard (1...1_000).contains(runs) else { throw ValidationError("--runs must be 1...1000, not \(runs)") }
        guard (1...100_000_000).contains(memoryEvents) else {
            throw ValidationError("--memory-events must be 1...100000000, not \(memoryEvents)")
        }
        guard (1...9).contains(gzipLevel) else { throw ValidationError("--gzip-level \(gzipLevel) is not in 1...9") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: directory) } catch { Output.error("beacon: could not remove \(directory): \(error)") }
        }
        switch name {
        case "memory":
            let stored = try await EnqueueBenchmark.fillForMemory(path: directory + "/memory.sqlite", count: memoryEvents)
            let report: JSONValue = [
                "events": .int(stored), "peakResidentBytes": .int(ProcessMemory.peakResidentBytes ?? -1),
                "residentBytes": .int(ProcessMemory.residentBytes ?? -1),
            ]
            Output.line(report.jsonString)
        case "drain":
            try await runDrain(directory: directory)
        case "latency":
            try await runLatency(directory: directory)
        case "all":
            try await runEnqueue(directory: directory)
            try await runDrain(directory: directory)
            try await runLatency(directory: directory)
            try await IngestBenchCommand.forAll(runs: runs, json: json).run()
        default:
            try await runEnqueue(directory: directory)
        }
    }

    private func runEnqueue(directory: String) async throws {
        var benchmark = EnqueueBenchmark(directory: directory)
        benchmark.events = events
        benchmark.runs = runs
        let result = try await benchmark.run { Output.error("bench: \($0)") }
        Output.error("bench: memory with \(memoryEvents) events queued (own process)...")
        let memory = try memoryInChildProcess()
        let peak = memory["peakResidentBytes"]?.intValue ?? -1
        if json {
            let report: JSONValue = [
                "benchmark": "enqueue",
                "events": .int(events), "runs": .int(runs),
                "propertyBytes": .int(result.propertyBytes), "payloadBytes": .int(result.payloadBytes),
                "rawRowsPerSecond": .array(result.rawRowsPerSecond.map { .double($0.rounded()) }),
                "engineEventsPerSecond": .array(result.engineEventsPerSecond.map { .double($0.rounded()) }),
                "rawMedian": .double(result.rawMedian.rounded()), "engineMedian": .double(result.engineMedian.rounded()),
                "ratio": .double((result.ratio * 1000).rounded() / 1000),
                "trackLatencyMicroseconds": [
                    "p50": .double(round2(result.latencyMicroseconds.p50)), "p99": .double(round2(result.latencyMicroseconds.p99)),
                    "p999": .double(round2(result.latencyMicroseconds.p999)), "max": .double(round2(result.latencyMicroseconds.max)),
                ],
                "memory": .object(memory),
            ]
            Output.line(report.jsonString)
        } else {
            Output.line("enqueue: \(events) events x \(runs) runs, \(result.propertyBytes) B of properties (\(result.payloadBytes) B per event)")
            Output.line("  raw SQLite inserts   median \(Int(result.rawMedian)) rows/s")
            Output.line("  engine (durable)     median \(Int(result.engineMedian)) events/s")
            Output.line("  ratio                \(String(format: "%.2f", result.ratio))")
            Output.line("  track() latency      p50 \(round2(result.latencyMicroseconds.p50)) µs, p99 \(round2(result.latencyMicroseconds.p99)) µs, p99.9 \(round2(result.latencyMicroseconds.p999)) µs")
            Output.line("  memory               peak RSS \(peak / 1_048_576) MiB with \(memory["events"]?.intValue ?? 0) events queued")
        }
    }

    private func runDrain(directory: String) async throws {
        let benchmark = DeliveryBenchmark(directory: directory, gzipLevel: gzipLevel)
        let backlog = 100_000
        var rates: [Double] = []
        var wire = 0
        var stages: [DrainStages] = []
        var cpu: [Double] = []
        for run in 1...runs {
            let (rate, bytes, cpuSeconds, runStages) = try await benchmark.drain(events: backlog, batchSize: 500, run: run)
            rates.append(rate)
            wire = bytes
            stages.append(runStages)
            cpu.append(cpuSeconds)
            Output.error(
                "bench: drain run \(run)/\(runs): \(Int(saturating: rate)) events/s stored, CPU \(Int(saturating: cpuSeconds * 1000)) ms; per batch \(runStages.text)")
        }
        let (plainRate, plainWire, _, _) = try await benchmark.drain(events: 20_000, batchSize: 500, run: 0, gzip: false)
        let medianCPU = BenchmarkStatistics.median(cpu)
        let medianStages = DrainStages(
            peekMilliseconds: BenchmarkStatistics.median(stages.map(\.peekMilliseconds)),
            sendMilliseconds: BenchmarkStatistics.median(stages.map(\.sendMilliseconds)),
            settleMilliseconds: BenchmarkStatistics.median(stages.map(\.settleMilliseconds)))
        let median = BenchmarkStatistics.median(rates)
        let perEventGzip = Double(wire) / Double(backlog)
        let perEventPlain = Double(plainWire) / 20_000
        if json {
            let report: JSONValue = [
                "benchmark": "drain", "backlog": .int(backlog), "batchSize": 500, "gzipLevel": .int(gzipLevel), "runs": .int(runs),
                "eventsPerSecond": .array(rates.map { .double($0.rounded()) }), "median": .double(median.rounded()),
                "wireBytesPerEventGzip": .double(round2(perEventGzip)), "wireBytesPerEventPlain": .double(round2(perEventPlain)),
                "plainEventsPerSecond": .double(plainRate.rounded()),
                "medianStageMillisecondsPerBatch": medianStages.json,
                "medianCPUSeconds": .double(round2(medianCPU * 1000) / 1000),
            ]
            Output.line(report.jsonString)
        } else {
            Output.line("drain: \(backlog)-event backlog to a collector on 127.0.0.1, batch size 500, gzip level \(gzipLevel), \(runs) runs")
            Output.line("  median               \(Int(median)) events/s stored")
            Output.line("  per batch (median)   \(medianStages.text)")
            Output.line("  CPU time (median)    \(Int(medianCPU * 1000)) ms for the backlog, all threads")
            Output.line("  wire bytes per event \(round2(perEventGzip)) gzip, \(round2(perEventPlain)) plain (\(Int(saturating: plainRate)) events/s plain)")
        }
    }

    private func runLatency(directory: String) async throws {
        let benchmark = DeliveryBenchmark(directory: directory, gzipLevel: gzipLevel)
        var times: [Double] = []
        var cpu: [Double] = []
        for run in 1...runs {
            let (elapsed, cpuSeconds, tracked, stages) = try await benchmark.firstToLast(events: 10_000, batchSize: 100, run: run)
            times.append(elapsed.inSeconds)
            cpu.append(cpuSeconds)
            Output.error(
                "bench: latency run \(run)/\(runs): \(round2(elapsed.inSeconds * 1000)) ms (tracking \(round2(tracked.inSeconds * 1000)) ms), "
                    + "CPU \(Int(saturating: cpuSeconds * 1000)) ms; per batch \(stages.text)")
        }
        let median = BenchmarkStatistics.median(times)
        let medianCPU = BenchmarkStatistics.median(cpu)
        if json {
            let report: JSONValue = [
                "benchmark": "latency", "events": 10_000, "batchSize": 100, "gzipLevel": .int(gzipLevel), "runs": .int(runs),
                "seconds": .array(times.map { .double(round2($0 * 1000) / 1000) }), "medianSeconds": .double(round2(median * 1000) / 1000),
                "medianCPUSeconds": .double(round2(medianCPU * 1000) / 1000),
            ]
            Output.line(report.jsonString)
        } else {
            Output.line("latency: first track to last of 10,000 events stored, batch size 100, gzip level \(gzipLevel), \(runs) runs")
            Output.line("  median               \(round2(median * 1000)) ms")
            Output.line("  CPU time (median)    \(Int(medianCPU * 1000)) ms, all threads (engine, sender and collector)")
        }
    }

    private func memoryInChildProcess() throws -> [String: JSONValue] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["bench", "memory", "--memory-events", String(memoryEvents)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // Unreadable output is reported as the child's failure just below.
        guard process.terminationStatus == 0,
              let value = try? JSONDecoder().decode(JSONValue.self, from: data), let object = value.objectValue
        else {
            throw CLIError.runtime("the memory benchmark process failed (exit \(process.terminationStatus))")
        }
        return object
    }
}

func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }

import ArgumentParser
import Beacon
import BeaconWire
import Foundation

/// `beacon bench`: the benchmarks. Build with `-c release` for meaningful figures.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the benchmarks (use a release build: swift run -c release beacon bench).",
        discussion: "Names: enqueue (throughput vs raw SQLite, track latency, memory with 1M events queued).")

    @Argument(help: "Which benchmark: enqueue, or memory (one part of enqueue, in its own process).")
    var name: String = "enqueue"

    @Flag(help: "Print the figures as JSON on stdout.")
    var json = false

    @Option(help: "Events per throughput run.")
    var events: Int = 200_000

    @Option(help: "Runs per side (the median is reported).")
    var runs: Int = 5

    @Option(help: "Events queued for the memory figure.")
    var memoryEvents: Int = 1_000_000

    func validate() throws {
        guard ["enqueue", "memory"].contains(name) else {
            throw ValidationError("unknown benchmark '\(name)': use enqueue or memory")
        }
        guard events > 0, runs > 0, memoryEvents > 0 else { throw ValidationError("--events, --runs and --memory-events must be positive") }
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

    private func memoryInChildProcess() throws -> [String: JSONValue] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["bench", "memory", "--memory-events", String(memoryEvents)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let value = try? JSONDecoder().decode(JSONValue.self, from: data), let object = value.objectValue
        else {
            throw CLIError.runtime("the memory benchmark process failed (exit \(process.terminationStatus))")
        }
        return object
    }
}

func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }

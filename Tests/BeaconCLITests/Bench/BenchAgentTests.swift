import BeaconWire
import Foundation
import Testing

/// `beacon bench agent` run for real on tiny workloads (debug build, no timing asserted):
/// a `beacon agent` process on 127.0.0.1 takes the clients' batches, the raw insert of the
/// same rows is the baseline, and each figure carries its runs, baseline, ratio, verdict
/// and load average. Bad flags are refused before anything starts.
@Suite("bench agent", .serialized, .timeLimit(.minutes(3)))
struct BenchAgentTests {
    @Test("Out-of-range and malformed flags are refused with exit 2, naming the flag", arguments: [
        (["--clients", "0"], "--clients"), (["--clients", "257"], "--clients"), (["--clients", "NaN"], "--clients"),
        (["--clients", "9223372036854775808"], "--clients"), (["--events", "0"], "--events"),
        (["--events", "10000001"], "--events"), (["--batch-size", "0"], "--batch-size"), (["--batch-size", "1001"], "--batch-size"),
        (["--runs", "0"], "--runs"), (["--runs", "1001"], "--runs"), (["--gzip-level", "10"], "--gzip-level"),
        (["--gzip-level", "-1"], "--gzip-level"), (["--durability", "fast"], "--durability"), (["--concurrency", "2"], "--concurrency"),
    ])
    func flagsAreChecked(arguments: [String], flag: String) async throws {
        let result = try await BeaconProcess.run(["bench", "agent"] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(flag), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("--help says what runs, what the baseline is, and the targets")
    func help() async throws {
        let result = try await BeaconProcess.run(["bench", "agent", "--help"])
        #expect(result.status == 0)
        for text in ["USAGE: beacon bench agent", "--clients", "--events", "--batch-size", "--runs", "--gzip-level", "--durability", "--json",
                     "Baseline", "raw insert", "1,000 rows", "ratio >= 0.7", "68 MiB/s", "(default: 16)"] {
            #expect(result.stdout.contains(text), "no \(text) in \(result.stdout)")
        }
        let bench = try await BeaconProcess.run(["bench", "--help"])
        #expect(bench.stdout.contains("agent"), "\(bench.stdout)")
    }

    /// The benchmark's temporary directories now in the temporary directory.
    private func benchDirectories() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("beacon-bench-agent-") })
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Runs `bench agent` with `arguments` and `--json`; its figures, one per stdout line.
    private func figures(_ arguments: [String]) async throws -> [[String: JSONValue]] {
        let before = try benchDirectories()
        let result = try await BeaconProcess.run(["bench", "agent"] + arguments + ["--json"], stdinBytes: nil, limit: .seconds(150))
        #expect(result.status == 0, "stderr: \(result.stderr.suffix(2000))")
        #expect(try benchDirectories().subtracting(before).isEmpty, "the run's stores are removed")
        return try result.stdout.split(separator: "\n").map { line in
            let value = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
            return try #require(value.objectValue, "not an object: \(line)")
        }
    }

    /// Checks one figure: its runs, medians, baseline, ratio, verdict and load.
    private func check(_ figure: [String: JSONValue], unit: String, runs: Int, target: String) throws {
        #expect(figure["benchmark"]?.stringValue == "agent")
        #expect(figure["unit"]?.stringValue == unit)
        let values = try #require(figure["values"]?.arrayValue).compactMap(\.doubleValue)
        let baselines = try #require(figure["baselineValues"]?.arrayValue).compactMap(\.doubleValue)
        #expect(values.count == runs && baselines.count == runs)
        #expect(values.allSatisfy { $0 > 0 } && baselines.allSatisfy { $0 > 0 })
        #expect(figure["runs"]?.intValue == runs)
        #expect(figure["cores"]?.intValue == ProcessInfo.processInfo.activeProcessorCount)
        let value = try #require(figure["median"]?.doubleValue), baseline = try #require(figure["baselineMedian"]?.doubleValue)
        #expect(abs(value - median(values)) <= 0.001 * max(1, value))
        #expect(abs(baseline - median(baselines)) <= 0.001 * max(1, baseline))
        #expect(figure["baseline"]?.stringValue?.contains("raw insert of the same rows") == true)
        let ratio = try #require(figure["ratio"]?.doubleValue)
        #expect(ratio > 0)
        #expect(abs(ratio - value / baseline) <= 0.002 * max(1, ratio))
        #expect(figure["target"]?.stringValue == target)
        let bound = try #require(Double(target.split(separator: " ").last ?? ""))
        guard case .bool(let met)? = figure["met"] else { throw BenchAgentTestFailure(message: "no met in \(figure)") }
        #expect(met == ((target.hasPrefix("ratio") ? ratio : value) >= bound))
        let load = try #require(figure["loadAverage1m"]?.doubleValue)
        #expect(load >= 0)
    }

    @Test("Two figures, events/s and MiB/s of the events' JSON, each with its baseline, ratio, verdict and load")
    func figuresOfARun() async throws {
        let figures = try await figures(["--events", "600", "--batch-size", "100", "--clients", "3", "--runs", "2"])
        try #require(figures.count == 2)
        let (events, mebibytes) = (figures[0], figures[1])
        #expect(events["figure"]?.stringValue == "agent ingest, 3 clients, 200 after the commit")
        #expect(mebibytes["figure"]?.stringValue == "agent ingest, 3 clients, 200 after the commit, events' JSON uncompressed")
        try check(events, unit: "events/s", runs: 2, target: "ratio >= 0.7")
        try check(mebibytes, unit: "MiB/s", runs: 2, target: ">= 68.0")
        let details = try #require(events["details"]?.objectValue)
        #expect(details["clients"]?.intValue == 3)
        #expect(details["events"]?.intValue == 600)
        #expect(details["batchSize"]?.intValue == 100)
        #expect(details["durability"]?.stringValue == "process-crash")
        #expect(details["baselineRowsPerTransaction"]?.intValue == 1000)
        let bytes = try #require(details["eventJSONBytes"]?.intValue)
        #expect(bytes > 600 * 100, "every event's JSON counts: \(bytes)")
        #expect((details["wireBytes"]?.intValue ?? 0) < bytes, "gzipped by default")
        #expect((details["agentCPUSeconds"]?.doubleValue ?? -1) >= 0)
        // The second baseline, reported beside the judged one: its median, its ratio and the runs' ratios.
        let copied = try #require(details["baselineLogCopiedMedian"]?.intValue)
        #expect(copied > 0)
        let copiedRatio = try #require(details["ratioToBaselineLogCopied"]?.doubleValue)
        let eventsMedian = try #require(events["median"]?.doubleValue)
        #expect(abs(copiedRatio - eventsMedian / Double(copied)) <= 0.002 * max(1, copiedRatio))
        #expect(details["pairedRatiosToBaselineLogCopied"]?.arrayValue?.count == 2)
        // Both figures come from the same runs: MiB/s is events/s times the bytes per event.
        for key in ["values", "baselineValues"] {
            let perSecond = try #require(events[key]?.arrayValue).compactMap(\.doubleValue)
            let throughput = try #require(mebibytes[key]?.arrayValue).compactMap(\.doubleValue)
            for (rate, volume) in zip(perSecond, throughput) {
                let expected = rate * Double(bytes) / 600 / 1_048_576
                #expect(abs(volume - expected) <= 0.002 * max(1, expected), "\(key): \(volume) MiB/s against \(rate) events/s")
            }
        }
    }

    @Test("Plain bodies and power-loss durability reach the agent and the baseline")
    func plainAndPowerLoss() async throws {
        let figures = try await figures(["--events", "300", "--batch-size", "50", "--clients", "2", "--runs", "1", "--gzip-level", "0",
                                         "--durability", "power-loss"])
        try #require(figures.count == 2)
        try check(figures[0], unit: "events/s", runs: 1, target: "ratio >= 0.7")
        let details = try #require(figures[0]["details"]?.objectValue)
        #expect(details["durability"]?.stringValue == "power-loss")
        #expect(details["gzipLevel"]?.intValue == 0)
        #expect((details["wireBytes"]?.intValue ?? 0) > (details["eventJSONBytes"]?.intValue ?? .max), "plain bodies hold the events and more")
    }
}

/// A figure without the field every figure must have.
private struct BenchAgentTestFailure: Error {
    var message: String
}

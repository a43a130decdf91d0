import Beacon
import BeaconWire
import Foundation
import Testing

/// `beacon bench` plumbing, on tiny workloads (debug build, no timing asserted): each
/// figure carries its runs, its baseline measured in the same invocation, and a ratio and
/// verdict that follow from them; the collector is a separate process storing on disk;
/// the raw-POST replay reaches it (the benchmark fails when the collector stored fewer
/// events than were sent, or answered anything but 200).
@Suite("bench plumbing")
struct BenchCommandTests {
    /// The figures of one invocation, one JSON object per stdout line.
    private func figures(_ arguments: [String]) async throws -> [[String: JSONValue]] {
        let result = try await BeaconProcess.run(["bench"] + arguments + ["--json"], stdinBytes: nil, limit: .seconds(600))
        #expect(result.status == 0, "stderr: \(result.stderr.suffix(2000))")
        return try result.stdout.split(separator: "\n").map { line in
            let value = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
            return try #require(value.objectValue, "not an object: \(line)")
        }
    }

    private func number(_ value: JSONValue?) -> Double? { value?.doubleValue }

    private func array(_ value: JSONValue?) -> [JSONValue]? {
        if case .array(let elements) = value { return elements }
        return nil
    }

    private func bool(_ value: JSONValue?) -> Bool? {
        if case .bool(let flag) = value { return flag }
        return nil
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Checks what every figure with a baseline must hold.
    private func checkRatio(_ figure: [String: JSONValue], runs: Int) throws {
        let values = try #require(array(figure["values"])).compactMap(number)
        let baselines = try #require(array(figure["baselineValues"])).compactMap(number)
        #expect(values.count == runs)
        #expect(baselines.count == runs)
        #expect(figure["runs"]?.intValue == runs)
        #expect(figure["cores"]?.intValue == ProcessInfo.processInfo.activeProcessorCount)
        let medianValue = try #require(number(figure["median"]))
        let baselineMedian = try #require(number(figure["baselineMedian"]))
        #expect(abs(medianValue - median(values)) <= 0.001 * max(1, abs(medianValue)))
        #expect(abs(baselineMedian - median(baselines)) <= 0.001 * max(1, abs(baselineMedian)))
        #expect(baselineMedian > 0)
        let ratio = try #require(number(figure["ratio"]))
        #expect(abs(ratio - medianValue / baselineMedian) <= 0.002 * max(1, ratio))
        // Run by run: each run's figure over the baseline taken in the same run.
        let paired = try #require(array(figure["pairedRatios"])).compactMap(number)
        #expect(paired.count == runs)
        for (index, pair) in paired.enumerated() where index < min(values.count, baselines.count) {
            #expect(abs(pair - values[index] / baselines[index]) <= 0.002 * max(1, pair), "run \(index + 1)")
        }
        let pairedMedian = try #require(number(figure["pairedRatioMedian"]))
        #expect(abs(pairedMedian - median(paired)) <= 0.002 * max(1, pairedMedian))
        let target = try #require(figure["target"]?.stringValue)
        let met = try #require(bool(figure["met"]) as Bool?)
        if target.hasPrefix("ratio >= "), let bound = Double(target.dropFirst("ratio >= ".count)) {
            #expect(met == (ratio >= bound))
        } else if target.hasPrefix("ratio <= "), let bound = Double(target.dropFirst("ratio <= ".count)) {
            #expect(met == (ratio <= bound))
        }
    }

    @Test("latency: against a collector process and the raw replay of the same bodies, with a ratio")
    func latency() async throws {
        // 10,000 events (100 batches): the collector's CPU is read in clock ticks of 10 ms,
        // and a few batches can use less than one.
        let figures = try await figures(["latency", "--runs", "2", "--latency-events", "10000"])
        let figure = try #require(figures.first)
        #expect(figures.count == 1)
        #expect(figure["benchmark"]?.stringValue == "latency")
        try checkRatio(figure, runs: 2)
        let details = try #require(figure["details"]?.objectValue)
        #expect(details["collector"]?.stringValue?.contains("beacon collector --db") == true)
        #expect((number(details["rawRoundTripMillisecondsPerBatch"]) ?? 0) > 0)
        #expect((number(details["engineCollectorCPUSeconds"]) ?? 0) > 0, "the collector's CPU is read from its process")
        let steps = try #require(details["collectorStepsMillisecondsPerBatch"]?["checkpointInBackground"]?.objectValue)
        #expect(steps["synchronous"]?.intValue == 1, "the collector commits with synchronous=NORMAL")
        #expect(steps["journalMode"]?.stringValue == "wal")
    }

    @Test("drain: every event stored by the collector process, raw replay included")
    func drain() async throws {
        let figures = try await figures(["drain", "--runs", "1", "--drain-events", "1200"])
        let figure = try #require(figures.first)
        #expect(figure["benchmark"]?.stringValue == "drain")
        try checkRatio(figure, runs: 1)
        let details = try #require(figure["details"]?.objectValue)
        #expect(details["batches"]?.intValue == 3, "500, 500 and 200 events, each posted again by the replay")
        #expect((number(details["wireBytesPerEventGzip"]) ?? 0) > 0)
        #expect((number(details["wireBytesPerEventPlain"]) ?? 0) > (number(details["wireBytesPerEventGzip"]) ?? 0))
    }

    @Test("events: the head and tail at depth, the worst-case text read, and the drain with the view open against without")
    func events() async throws {
        let figures = try await figures(["events", "--runs", "1", "--pending-events", "3000", "--drain-events", "1200"])
        #expect(figures.count == 3)
        let head = try #require(figures.first)
        #expect(head["unit"]?.stringValue == "ms" && head["target"]?.stringValue == "< 1000.0")
        #expect(head["details"]?["listed"]?.intValue == 20, "10 from each end")
        #expect(head["details"]?["events"]?.intValue == 3000)
        let drain = try #require(figures.last)
        try checkRatio(drain, runs: 1)
        #expect((drain["details"]?["viewReads"]?.intValue ?? 0) >= 1, "the view read while the queue drained")
    }

    @Test("enqueue: the ratio to raw SQLite, the engine against a bare tracker, track p99 and memory growth")
    func enqueue() async throws {
        let figures = try await figures(["enqueue", "--runs", "1", "--events", "3000", "--memory-events", "2000"])
        #expect(figures.count == 4)
        for figure in figures where figure["baseline"] != nil { try checkRatio(figure, runs: 1) }
        let memory = try #require(figures.first { $0["unit"]?.stringValue == "MiB" })
        #expect(memory["baseline"] == nil)
        let growth = try #require(number(memory["median"]))
        #expect(bool(memory["met"]) == (growth <= 5))
        let p99 = try #require(figures.first { $0["unit"]?.stringValue == "µs" })
        #expect(bool(p99["met"]) == ((number(p99["median"]) ?? .infinity) < 10))
    }

    @Test("idle: the fleet screen and one dashboard each run on a pseudo-terminal, their CPU read from their clocks")
    func idle() async throws {
        let figures = try await figures(["idle", "--runs", "1", "--idle-seconds", "1"])
        let figure = try #require(figures.first)
        #expect(figures.count == 1)
        #expect(figure["benchmark"]?.stringValue == "idle" && figure["unit"]?.stringValue == "% of a core")
        #expect(figure["target"]?.stringValue == "< 1.0")
        #expect(figure["details"]?["stores"]?.intValue == 10 && figure["details"]?["terminal"]?.stringValue == "80x24")
        let values = try #require(array(figure["values"])).compactMap(number)
        let baselines = try #require(array(figure["baselineValues"])).compactMap(number)
        #expect(values.count == 1 && baselines.count == 1)
        // A share of one core for a process that sleeps: 0 or more, and far from a whole core.
        for value in values + baselines { #expect(value >= 0 && value < 100) }
        let median = try #require(number(figure["median"]))
        #expect(bool(figure["met"]) == (median < 1.0))
    }
}

import Foundation
import Testing

/// `beacon bench ingest`'s plumbing, on tiny workloads: flags checked, figures assembled
/// from the runs (medians, ratio, percentiles), stores cleaned up. No timing is asserted.
@Suite("bench ingest", .timeLimit(.minutes(2)))
struct BenchIngestTests {
    @Test("Out-of-range and malformed flags are refused with exit 2, naming the flag", arguments: [
        (["--clients", "0"], "--clients"), (["--clients", "-1"], "--clients"), (["--clients", "257"], "--clients"),
        (["--clients", "1e300"], "--clients"), (["--clients", "9223372036854775808"], "--clients"), (["--clients", "NaN"], "--clients"),
        (["--runs", "0"], "--runs"), (["--events", "0"], "--events"), (["--events", "-9223372036854775808"], "--events"),
        (["--batch-size", "1001"], "--batch-size"), (["--gzip-level", "10"], "--gzip-level"),
        (["--store-pool-size", "0"], "--store-pool-size"), (["--collectors", "2"], "--collectors"),
        (["--collectors", "17", "--store", "postgres://u@h/d"], "--collectors"), (["--store", "mysql://u@h/d"], "--store"),
        (["--store", "postgres://u@h/d?schema=a;drop"], "--store"),
    ])
    func flagsAreChecked(arguments: [String], flag: String) async throws {
        let result = try await BeaconProcess.run(["bench", "ingest"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(flag), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// The one JSON object per line that `--json` prints.
    private func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// Checks the figures of one setting against each other.
    private func checkFigures(_ object: [String: Any], runs: Int) throws {
        let perRun = try #require(object["values"] as? [Double])
        let baselines = try #require(object["baselineValues"] as? [Double])
        #expect(perRun.count == runs && baselines.count == runs)
        #expect(perRun.allSatisfy { $0 > 0 } && baselines.allSatisfy { $0 > 0 })
        let figure = try #require(object["median"] as? Double), baseline = try #require(object["baselineMedian"] as? Double)
        #expect(abs(figure - Self.median(perRun)) <= 1)
        #expect(abs(baseline - Self.median(baselines)) <= 1)
        let ratio = try #require(object["ratio"] as? Double)
        #expect(abs(ratio - figure / baseline) < 0.002)
        #expect(object["met"] as? Bool == (ratio >= 0.7))
        #expect((object["figure"] as? String)?.hasPrefix("ingest, ") == true)
        let details = try #require(object["details"] as? [String: Any])
        let p50 = try #require(details["p50Milliseconds"] as? Double), p99 = try #require(details["p99Milliseconds"] as? Double)
        #expect(p50 > 0 && p99 >= p50)
        #expect(object["cores"] as? Int == ProcessInfo.processInfo.activeProcessorCount)
        #expect(object["runs"] as? Int == runs)
        #expect(object["target"] as? String == "ratio >= 0.7")
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    @Test("SQLite: one setting per --clients, each with its runs, its baseline and the ratio of the medians")
    func sqliteFigures() async throws {
        let result = try await BeaconProcess.run(
            ["bench", "ingest", "--events", "1200", "--runs", "2", "--clients", "1", "--clients", "3", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try objects(result.stdout)
        let details = objects.map { $0["details"] as? [String: Any] ?? [:] }
        #expect(details.map { $0["clients"] as? Int } == [1, 3])
        for (object, details) in zip(objects, details) {
            #expect(object["benchmark"] as? String == "ingest")
            #expect(details["store"] as? String == "sqlite")
            #expect(details["collectors"] as? Int == 1)
            #expect(details["events"] as? Int == 1200)
            #expect(details["batchSize"] as? Int == 500)
            try checkFigures(object, runs: 2)
        }
    }

    @Test(
        "PostgreSQL: 1 and 2 collectors, every run on a schema of its own, dropped afterwards",
        .enabled(if: CrashDatabase.mustRun, "BEACON_TEST_POSTGRES is not set (.ci/run sets up a local PostgreSQL)"))
    func postgresFigures() async throws {
        let address = try #require(CrashDatabase.address, "CI requires BEACON_TEST_POSTGRES")
        let result = try await BeaconProcess.run(
            ["bench", "ingest", "--store", address, "--events", "1000", "--runs", "1", "--clients", "3", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("beacon:beacon"), "no password in the output")
        let objects = try objects(result.stdout)
        let details = objects.map { $0["details"] as? [String: Any] ?? [:] }
        #expect(details.map { $0["collectors"] as? Int } == [1, 2])
        for (object, details) in zip(objects, details) {
            #expect(details["store"] as? String == "postgres")
            #expect(details["clients"] as? Int == 3)
            try checkFigures(object, runs: 1)
        }
        let left = try await CrashDatabase.psql(address, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'beacon_bench_%'")
        #expect(left.status == 0)
        #expect(left.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "every run's schema was dropped")
    }
}

import BeaconSimulation
import Foundation
import Testing

/// `beacon simulate` comparing engine settings, as a user tuning them runs it: the bundled
/// `tuning-batch-size.json` (a backlog after an outage, a throttling slow warehouse, a
/// matrix of batch sizes and policies), its figures checked against each run's stores.
@Suite(.serialized) struct SimulateCompareTests {
    @Test func theTuningScenarioComparesItsVariantsAndTheFiguresAgreeWithTheStores() async throws {
        let directory = try BeaconProcess.temporaryDirectory() + "/tune"
        // The policy pinned and two runs each: 3 variants × 2 runs, for the suite's time.
        let result = try await BeaconProcess.run(
            [
                "simulate", SimulateScenarioTests.path("tuning-batch-size"), "--repeat", "2",
                "--set", "engine.policy=count 100 or every 1s", "--json", "--dir", directory,
            ], stdinBytes: nil, limit: .seconds(900))
        #expect(result.status == 0, "\(result.stderr.suffix(3000))")
        let comparison = try JSONDecoder().decode(SimulationComparison.self, from: Data(result.stdout.utf8))
        #expect(comparison.variants.map(\.name) == ["b50", "b200", "b500"], "the pinned policy is no longer a part of the names")
        #expect(comparison.variants.allSatisfy { $0.settings["policy"] == "count 100 or every 1s" })
        #expect(comparison.variants.map { $0.settings["batchSize"] } == ["50", "200", "500"])
        let seeds = comparison.variants.map { $0.runs.map(\.seed) }
        #expect(seeds.allSatisfy { $0 == seeds[0] } && seeds[0].count == 2 && seeds[0].first == 11, "the same seeds for every variant")
        #expect(FileManager.default.fileExists(atPath: directory + "/comparison.json"))
        for variant in comparison.variants {
            for run in variant.runs {
                let data = try Data(contentsOf: URL(fileURLWithPath: run.directory + "/report.json"))
                let report = try JSONDecoder().decode(SimulationReport.self, from: data)
                try SimulateScenarioTests.expectAgreement(
                    name: "\(variant.name) seed \(run.seed)", result: result, decoded: report, directory: run.directory)
                #expect(run.delivered == report.totals.delivered && run.tracked == report.totals.tracked)
                let perEvent = Double(report.totals.requests) / Double(max(1, report.totals.tracked))
                #expect(abs((run.figures[.requestsPerEvent] ?? -1) - perEvent) < 1e-9)
                #expect(run.figures[.drainSeconds] == report.drain.seconds)
                #expect(FileManager.default.fileExists(atPath: run.directory + "/chart.svg"))
            }
        }
        // A named best lies wholly below every other variant's range, by the figures shown.
        #expect(comparison.verdicts.count == SimulationComparison.Figure.allCases.count)
        for verdict in comparison.verdicts {
            guard let best = verdict.best else {
                #expect(verdict.text.contains("no difference") || verdict.text.contains("nothing to compare"), "\(verdict.text)")
                continue
            }
            let spreads = comparison.variants.compactMap { variant in variant.spread(verdict.figure).map { (variant.name, $0) } }
            let winner = try #require(spreads.first { $0.0 == best }?.1)
            for (name, spread) in spreads where name != best { #expect(winner.high < spread.low, "\(verdict.text)") }
        }
        // Bigger batches, fewer requests per event: the one figure the timing cannot turn.
        let requests = comparison.variants.map { $0.spread(.requestsPerEvent)?.median ?? 0 }
        #expect(requests[0] > requests[1] && requests[1] > requests[2], "\(requests)")
    }

    @Test(arguments: [
        (["--set", "engine.batchSize=0"], "--set engine.batchSize=0"),
        (["--set", "engine.nope=1"], "not an engine setting"),
        (["--repeat", "0"], "--repeat must be 1...20"),
        (["--repeat", "21"], "--repeat must be 1...20"),
        (["--repeat", "2", "--chart", "/tmp/x.svg"], "--chart draws one run"),
        (["--junit", "/nonexistent-folder/simulate.xml"], "--junit /nonexistent-folder/simulate.xml: the folder /nonexistent-folder does not exist"),
        (["--junit", "/tmp/"], "names a folder"),
        (["--set", "engine.policy=\u{0}"], "--set engine.policy="),
    ])
    func badComparisonFlagsExitTwo(flags: [String], words: String) async throws {
        let result = try await BeaconProcess.run(
            ["simulate", SimulateScenarioTests.path("tuning-batch-size")] + flags, stdinBytes: nil, limit: .seconds(60))
        #expect(result.status == 2, "\(flags): \(result.stderr)")
        #expect(result.stderr.contains(words), "\(flags): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}

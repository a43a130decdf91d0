import BeaconSimulation
import BeaconTesting
import Foundation
import Testing

/// The two scenarios a developer wrote from `FORMAT.md` alone when `simulate` was first
/// tried (issue 46): a point of sale offline for two hours at 600× with three destinations,
/// one throttling with `Retry-After`; a collector answering 413 above 120 events, down for
/// 6 s, then a kill -9 while it recovers. Per destination, the report's figures must be the
/// stores' contents, and the drain must be measured from the end of the outage.
@Suite(.serialized) struct SimulateDestinationScenarioTests {
    static let pointOfSale = """
        {
          "name": "Point of sale offline for two hours",
          "seed": 7,
          "timeScale": 600,
          "engine": { "policy": "count 100 or every 1s", "batchSize": 100 },
          "collectors": [ { "name": "api" }, { "name": "backup" }, { "name": "warehouse" } ],
          "steps": [
            { "name": "opening", "seconds": 600, "rate": 1 },
            { "name": "offline", "seconds": 3600, "rate": 1, "offline": true },
            { "name": "throttled", "seconds": 600, "rate": 1,
              "faults": { "warehouse": { "throttleRate": 0.5, "retryAfterSeconds": 3 } } },
            { "name": "closing", "seconds": 1200, "rate": 1 }
          ],
          "drainTimeoutSeconds": 60,
          "expect": { "deadLetters": 0, "duplicatesStored": 0, "destinations": { "warehouse": { "deadLetters": 0 } } }
        }
        """

    static let cutDownAndCrash = """
        {
          "name": "A collector that cuts big batches, goes down, and a crash while it recovers",
          "seed": 3,
          "engine": { "policy": "count 200 or every 1s", "batchSize": 200 },
          "collectors": [ { "name": "main", "faults": { "maxBatchEvents": 120 } } ],
          "steps": [
            { "name": "steady", "seconds": 2, "rate": 200 },
            { "name": "down", "seconds": 6, "rate": 200, "faults": { "main": { "down": true, "maxBatchEvents": 120 } } },
            { "name": "recovering", "seconds": 0.4, "rate": 200 },
            { "name": "crash", "seconds": 3, "rate": 200, "kill": true }
          ],
          "drainTimeoutSeconds": 60,
          "expect": { "deadLetters": 0, "duplicatesStored": 0, "drainedWithinSeconds": 20 }
        }
        """

    /// The runner samples this often; a drain's start is only known to a sample.
    static let sampleInterval = 0.1

    @Test func perDestinationFiguresAreTheStoresAndTheDrainStartsWhenTheOutageEnds() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let files = try [("pos", Self.pointOfSale), ("cut", Self.cutDownAndCrash)].map { name, text in
            let path = "\(directory)/\(name).json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let chart = directory + "/pos.svg"
        let runs = try await concurrently([0, 1], width: 2) { index in
            try await SimulateScenarioTests.simulate(files[index], index == 0 ? ["--chart", chart] : [])
        }
        for (name, run) in zip(["point of sale", "cut, down and crash"], runs) {
            try SimulateScenarioTests.expectAgreement(name: name, result: run.0, decoded: run.1, directory: run.2)
        }
        let pos = try #require(runs[0].1), cut = try #require(runs[1].1)
        for report in [pos, cut] {
            try expectDrainFromTheOutagesEnd(report)
            try expectDestinationDepthsFromTheSamples(report)
            // The steps' stored counts add up to every collector's store.
            let stepsStored = report.steps.map(\.delivered).reduce(0, +)
            let storesHold = report.totals.delivered.values.reduce(0, +)
            #expect(stepsStored == storesHold, "\(report.scenario): steps \(stepsStored), stores \(storesHold)")
        }

        // Three destinations, each its own figures; the throttled warehouse held the backlog longest.
        #expect(pos.destinations.map(\.name) == ["api", "backup", "warehouse"])
        let warehouse = try #require(pos.destinations.last), api = try #require(pos.destinations.first)
        #expect((warehouse.drainSeconds ?? 0) >= (api.drainSeconds ?? .infinity), "\(pos.destinations)")
        #expect((warehouse.latency?.p99 ?? 0) >= (api.latency?.p99 ?? .infinity), "\(pos.destinations)")
        // At 600× the throttle's Retry-After and the backoff run in real time: the report says so there, and only there.
        let throttled = try #require(pos.steps.first { $0.name == "throttled" })
        #expect(throttled.realTimeWarnings.contains { $0.contains("warehouse's Retry-After 3 s is honoured in real time: 30 min") },
                "\(throttled.realTimeWarnings)")
        #expect(throttled.realTimeWarnings.contains { $0.contains("retries back off in real time") }, "\(throttled.realTimeWarnings)")
        let otherWarnings = pos.steps.filter { $0.name != "throttled" }.flatMap(\.realTimeWarnings)
        #expect(otherWarnings.isEmpty, "\(otherWarnings)")
        // The chart draws a line per destination, each in the legend.
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        for name in ["api", "backup", "warehouse"] { #expect(svg.contains(">pending \(name)</text>"), "\(name)") }
        #expect(svg.components(separatedBy: #"stroke-dasharray="6 2"/>"#).count - 1 >= 6, "three lines and three legend swatches")

        // A batch-size limit is not an outage: only "down" is faulted, every step after it
        // healthy, and the engine split its batches; the kill came while it recovered.
        #expect(cut.steps.map(\.condition) == [.healthy, .faulted, .healthy, .healthy, .drain])
        #expect(cut.totals.splits > 0 && cut.totals.restarts == 1, "\(cut.totals)")
        let cutWarnings = cut.steps.flatMap(\.realTimeWarnings)
        #expect(cutWarnings.isEmpty, "time scale 1: scenario time is real time: \(cutWarnings)")
    }

    /// The drain starts where the last outage ended (within a sample), and it is over no
    /// later than the first sample that found every destination empty after that.
    private func expectDrainFromTheOutagesEnd(_ report: SimulationReport) throws {
        let outage = try #require(report.steps.lastIndex { $0.condition != .healthy && $0.condition != .drain })
        let end = report.steps[outage].start + report.steps[outage].seconds
        #expect(abs(report.drain.recoveredAt - end) <= Self.sampleInterval, "\(report.scenario): from \(report.drain.recoveredAt), outage ended \(end)")
        let drain = try #require(report.drain.seconds, "\(report.scenario): not drained")
        let empty = try #require(
            report.timeline.samples.first { $0.time > report.drain.recoveredAt && $0.depth == 0 }, "\(report.scenario): never empty")
        #expect(drain >= 0 && drain <= empty.time - report.drain.recoveredAt + 1e-9, "\(report.scenario): \(drain) s")
    }

    /// Each destination's most pending is the deepest the samples saw for it.
    private func expectDestinationDepthsFromTheSamples(_ report: SimulationReport) throws {
        for destination in report.destinations {
            let sampled = report.timeline.samples.compactMap { $0.destinations?[destination.name] }
            #expect(!sampled.isEmpty, "\(report.scenario)/\(destination.name): no sample")
            #expect(destination.maxDepth == sampled.max(), "\(report.scenario)/\(destination.name)")
        }
    }
}

import BeaconSimulation
import BeaconTesting
import Foundation
import Testing

/// Every bundled scenario through `beacon simulate`, as a user runs it: it must pass, and
/// what its report claims is checked again here against the collectors' and the engine's
/// stores, read with SQL, not through the runner.
@Suite(.serialized) struct SimulateScenarioTests {
    static let scenarios = ["train-offline-burst", "flaky-collector", "hour-outage-restart", "poison-event", "queue-overflow"]

    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Assets/scenarios/\(name).json").path
    }

    /// Runs `beacon simulate` with `--json --dir DIR` plus `extra`; the report and DIR.
    static func simulate(_ file: String, _ extra: [String] = []) async throws -> (BeaconProcess.Result, SimulationReport?, String) {
        let directory = try BeaconProcess.temporaryDirectory() + "/run"
        let result = try await BeaconProcess.run(
            ["simulate", file, "--json", "--dir", directory] + extra, stdinBytes: nil, limit: .seconds(300))
        let report = try? JSONDecoder().decode(SimulationReport.self, from: Data(result.stdout.utf8))
        return (result, report, directory)
    }

    /// Each bundled scenario passes, and the stores agree with its report. The five run
    /// three at a time: each is a few hundred events a second against the wall clock
    /// (about 12 s each), so they share two cores without crowding each other.
    @Test func everyBundledScenarioPassesAndTheStoresAgreeWithItsReport() async throws {
        let runs = try await concurrently(Self.scenarios, width: 3) { name in
            try await Self.simulate(Self.path(name))
        }
        #expect(runs.count == Self.scenarios.count)
        for (name, run) in zip(Self.scenarios, runs) {
            try Self.expectAgreement(name: name, result: run.0, decoded: run.1, directory: run.2)
        }
    }

    static func expectAgreement(name: String, result: BeaconProcess.Result, decoded: SimulationReport?, directory: String) throws {
        #expect(result.status == 0, "\(name): \(result.stderr)")
        let report = try #require(decoded, "\(name): no JSON report: \(result.stdout.prefix(500)) \(result.stderr)")
        #expect(report.passed, "\(name): \(report.failures)")
        let collectors = report.totals.delivered.keys.sorted()
        #expect(!collectors.isEmpty)
        let stores = try SimulationStores(directory: directory, collectors: collectors)

        #expect(stores.tracked.count == report.totals.tracked)
        #expect(stores.inDoubt.count == report.totals.inDoubt)
        #expect(stores.deadLetterRows == report.totals.deadLetters)
        #expect(stores.queued == 0, "\(name): events left in the engine's store")
        #expect(report.steps.map(\.tracked).reduce(0, +) == report.totals.tracked)
        #expect(report.totals.requests > 0 && report.totals.bytesSent > 0, "the engine's status counts its requests")
        #expect(report.timeline.samples.count > 10, "sampled every 100 ms")
        for collector in collectors {
            let stored = try #require(stores.stored[collector])
            let letters = stores.deadLetters[collector] ?? [:]
            #expect(stored.count == report.totals.delivered[collector], "\(name)/\(collector)")
            #expect(stores.repeated[collector, default: 0] == 0, "\(name)/\(collector): an event stored twice")
            // Nothing stored that was not tracked (or posted and left in doubt), and each
            // stored JSON carries its own messageId, byte for byte.
            let unknown = stored.keys.filter { !stores.tracked.contains($0) && !stores.inDoubt.contains($0) }
            #expect(unknown.isEmpty, "\(name)/\(collector): stored but never tracked: \(unknown.prefix(3))")
            let mislabelled = stored.filter { !$0.value.contains("\"messageId\":\"\($0.key)\"") }
            #expect(mislabelled.isEmpty, "\(name)/\(collector): \(mislabelled.keys.prefix(3))")
            // Every tracked event is stored or dead-lettered (with a reason), never both.
            for id in stores.tracked {
                let isStored = stored[id] != nil
                let reason = letters[id]
                #expect(isStored != (reason != nil), "\(name)/\(collector): \(id) stored \(isStored), dead-lettered \(reason ?? "no")")
                if let reason { #expect(!reason.isEmpty) }
            }
            for id in stores.poison {
                #expect(stored[id] == nil && letters[id] != nil, "\(name)/\(collector): poison \(id)")
            }
            // The report's own figures for this destination are the store's.
            let figures = try #require(report.destinations.first { $0.name == collector }, "\(name): no figures for \(collector)")
            #expect(figures.delivered == stored.count && figures.deadLetters == letters.count, "\(name)/\(collector): \(figures)")
            // Latency: one figure per tracked event the collector stored, in order, within the run.
            let measured = stored.keys.filter { stores.tracked.contains($0) }.count
            if measured > 0 {
                let latency = try #require(figures.latency, "\(name)/\(collector): no latency for \(measured) events")
                #expect(latency.events == measured, "\(name)/\(collector): \(latency.events) of \(measured) events measured")
                #expect(0 <= latency.p50 && latency.p50 <= latency.p90 && latency.p90 <= latency.p99 && latency.p99 <= latency.max)
                #expect(latency.max <= report.seconds + 1, "\(name)/\(collector): an event took longer than the run")
            }
            if let overall = report.drain.seconds {
                let own = try #require(figures.drainSeconds, "\(name)/\(collector): drained overall, not on its own")
                #expect(own <= overall + 1e-9, "\(name)/\(collector): drained after the whole queue")
            }
        }
        #expect(report.destinations.count == collectors.count)
    }

    /// One seed, two runs: the same steps and every count the timing does not decide
    /// (events tracked and refused per step, stored per collector, dead letters), and the
    /// same messageIds; another seed, other ids.
    @Test func oneSeedGivesTheSameRunTwice() async throws {
        // queue-overflow, shortened: a bound, a burst and a rate offline (the bound, not the
        // timing, decides what is refused), a kill, then back online.
        let file = try BeaconProcess.temporaryDirectory() + "/repeat.json"
        try """
        {
          "name": "repeatable", "seed": 5,
          "engine": { "policy": "count 50 or every 200ms", "batchSize": 50, "maxEvents": 400 },
          "collectors": [ { "name": "main" }, { "name": "copy" } ],
          "steps": [
            { "name": "offline", "seconds": 1.5, "rate": 200, "offline": true, "burst": 300 },
            { "name": "crash", "seconds": 0.5, "offline": true, "kill": true },
            { "name": "online", "seconds": 1 },
            { "name": "after", "seconds": 1, "rate": 50, "poison": 1 }
          ]
        }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (firstResult, first, firstDirectory) = try await Self.simulate(file)
        let (secondResult, second, secondDirectory) = try await Self.simulate(file)
        #expect(firstResult.status == 0 && secondResult.status == 0, "\(firstResult.stderr) \(secondResult.stderr)")
        let one = try #require(first), two = try #require(second)
        #expect(one.steps.map(\.name) == two.steps.map(\.name))
        #expect(one.steps.map(\.tracked) == two.steps.map(\.tracked))
        #expect(one.steps.map(\.refused) == two.steps.map(\.refused))
        #expect(one.steps.map(\.actions) == two.steps.map(\.actions))
        #expect(one.totals.tracked == two.totals.tracked && one.totals.inDoubt == two.totals.inDoubt)
        #expect(one.totals.delivered == two.totals.delivered)
        #expect(one.totals.deadLetters == two.totals.deadLetters)
        #expect(one.totals.inDoubt == 200, "the queue's bound decides the refusals, not the timing")
        #expect(one.totals.deadLetters == 2 && one.totals.restarts == 1)
        let ids = { (directory: String) in try String(contentsOfFile: "\(directory)/tracked.ids", encoding: .utf8) }
        #expect(try ids(firstDirectory) == ids(secondDirectory))

        let (otherResult, _, otherDirectory) = try await Self.simulate(file, ["--seed", "99"])
        #expect(otherResult.status == 0, "\(otherResult.stderr)")
        #expect(try ids(otherDirectory) != ids(firstDirectory))
    }

    /// 60 poison events of 9 KB at once, more than one post of the ingest can carry: the
    /// feeder splits its posts under the body limit, so each is tracked and ends a dead
    /// letter, and nothing is refused for the company it was posted in.
    @Test func aStepOfManyPoisonEventsTestsEveryOne() async throws {
        let file = try BeaconProcess.temporaryDirectory() + "/poison.json"
        try """
        {
          "name": "many poison", "seed": 3,
          "collectors": [ { "name": "main" } ],
          "steps": [ { "name": "poison", "seconds": 1, "rate": 20, "poison": 60 } ],
          "expect": { "deadLetters": 60, "refused": 0 }
        }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (result, decoded, _) = try await Self.simulate(file)
        #expect(result.status == 0, "\(result.stdout.suffix(3000)) \(result.stderr.suffix(2000))")
        let report = try #require(decoded)
        #expect(report.totals.poison == 60 && report.totals.poisonRefused == 0)
        #expect(report.totals.deadLetters == 60 && report.steps.first?.refused == 0)
    }
}

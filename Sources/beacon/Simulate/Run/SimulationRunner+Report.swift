import BeaconSimulation

extension SimulationRunner {
    /// The report of a finished run: the recorder's steps and timeline, the evidence's
    /// totals, every invariant and the scenario's expectations.
    func report(
        recorder: SimulationRecorder, evidence: SimulationEvidence, latencies: [String: SimulationLatency], seconds: Double,
        emptied: Bool, restarts: Int
    ) -> SimulationReport {
        let engine = recorder.engineCounts
        var delivered: [String: Int] = [:]
        var duplicatesStored = 0
        var duplicatesSent = 0
        var deadLetters = Set<String>()
        for destination in evidence.destinations {
            delivered[destination.name] = destination.stored.count
            duplicatesStored += destination.stored.values.reduce(0) { $0 + max(0, $1 - 1) }
            duplicatesSent += destination.duplicatesSent
            for id in destination.deadLettered.keys { deadLetters.insert("\(destination.name)\u{0}\(id)") }
        }
        let totals = SimulationTotals(
            tracked: evidence.tracked.count, inDoubt: evidence.inDoubt.count,
            poison: evidence.poison.intersection(evidence.tracked).count,
            poisonRefused: evidence.poison.intersection(evidence.inDoubt).count,
            delivered: delivered, deadLetters: deadLetters.count,
            dropped: evidence.destinations.map(\.dropped).max() ?? 0, duplicatesSent: duplicatesSent,
            duplicatesStored: duplicatesStored, retries: engine.retries, splits: engine.splits, requests: engine.requests,
            bytesSent: engine.bytesSent, maxDepth: recorder.maxDepth, restarts: restarts)
        let final = recorder.recoveries.last
        let drain = SimulationDrain(
            recoveredAt: final?.time ?? seconds, seconds: final?.drainedAfter, emptied: emptied)
        let destinations = evidence.destinations.map { destination in
            SimulationDestination(
                name: destination.name, delivered: destination.stored.count, deadLetters: destination.deadLettered.count,
                maxDepth: recorder.destinationMaxDepth[destination.name],
                drainSeconds: final?.destinationsDrainedAfter[destination.name] ?? final?.drainedAfter,
                latency: latencies[destination.name])
        }
        let timeline = SimulationTimeline(
            samples: recorder.samples,
            steps: recorder.steps.map {
                SimulationTimeline.Step(name: $0.name, start: $0.start, end: $0.start + $0.seconds, condition: $0.condition)
            },
            marks: recorder.marks)
        return SimulationReport(
            scenario: scenario.name, seed: scenario.seed, timeScale: timeScale, seconds: seconds, steps: recorder.steps,
            totals: totals, drain: drain, invariants: InvariantCheck.check(evidence),
            expectations: ExpectationCheck.check(scenario.expect, totals: totals, drain: drain, destinations: destinations),
            timeline: timeline, destinations: destinations)
    }
}

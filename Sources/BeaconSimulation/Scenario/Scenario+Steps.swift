extension Scenario {
    /// What the world is like during `step`: offline first, then faulted (a collector down,
    /// failing, throttling, hanging or resetting; latency and a batch-size limit slow
    /// delivery without refusing it, and are not an outage), then paused, else healthy.
    public func condition(of step: ScenarioStep) -> SimulationTimeline.Condition {
        if step.offline { return .offline }
        if collectors.contains(where: { step.faults(for: $0).isOutage }) { return .faulted }
        if !step.paused.isEmpty { return .paused }
        return .healthy
    }

    /// The step's actions and conditions in words, in the order they happen: `kill -9 and
    /// restart`, `burst 1000`, `poison 1`, `retry now`, `offline`, `paused NAME`,
    /// `NAME: fail 30.0%` (faults the step gives a collector, when they differ from its
    /// own), `100/s`.
    public func actions(of step: ScenarioStep) -> [String] {
        var actions: [String] = []
        if step.kill { actions.append("kill -9 and restart") }
        if step.burst > 0 { actions.append("burst \(step.burst)") }
        if step.poison > 0 { actions.append("poison \(step.poison)") }
        if step.retryNow { actions.append("retry now") }
        if step.offline { actions.append("offline") }
        if !step.paused.isEmpty { actions.append("paused \(step.paused.joined(separator: ", "))") }
        for collector in collectors {
            let faults = step.faults(for: collector)
            if faults != collector.faults { actions.append("\(collector.name): \(faults.summary)") }
        }
        if step.rate > 0 { actions.append("\(SimulationFormat.amount(step.rate))/s") }
        return actions
    }
}

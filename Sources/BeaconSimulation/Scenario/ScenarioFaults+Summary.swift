extension ScenarioFaults {
    /// Whether this plan refuses or cuts delivery (down, failing, throttled, hanging, reset).
    /// Latency only slows requests, and a 413 past a batch size only makes the engine split
    /// its batches (a single event always fits): every event still arrives, so neither makes
    /// a step an outage, nor moves the moment the drain is measured from.
    public var isOutage: Bool {
        down || failRate > 0 || throttleRate > 0 || hangRate > 0 || resetRate > 0
    }

    /// The faults in words, for the report: `fail 30.0%, throttle 10.0% (retry after 1 s)`;
    /// `none` for none.
    public var summary: String {
        var parts: [String] = []
        if down { parts.append("down") }
        if failRate > 0 { parts.append("fail \(SimulationFormat.percent(failRate))") }
        if throttleRate > 0 {
            parts.append("throttle \(SimulationFormat.percent(throttleRate)) (retry after \(retryAfterSeconds) s)")
        }
        if hangRate > 0 { parts.append("hang \(SimulationFormat.percent(hangRate)) for \(SimulationFormat.amount(hangSeconds)) s") }
        if resetRate > 0 { parts.append("reset \(SimulationFormat.percent(resetRate))") }
        if latencyMilliseconds > 0 { parts.append("+\(latencyMilliseconds) ms") }
        if let maxBatchEvents { parts.append("413 over \(maxBatchEvents) events") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

import Beacon

/// What the dashboard asks the engine (or the demo around it) to do.
///
/// The reducer returns these; the run loop hands each to the caller's `perform` closure.
public enum DashboardAction: Sendable, Hashable {
    /// Send what is queued now.
    case flush
    /// Use this flush policy from now on.
    case setPolicy(FlushPolicy)
    /// Switch sending off (`true`) or back on (`false`).
    case setOffline(Bool)
    /// Track this many synthetic events at once.
    case burst(Int)
    /// Use this many events per batch at most.
    case setBatchSize(Int)
    /// Generate this many synthetic events per second (0: off). Demo only.
    case setGeneratorRate(Int)
    /// Make the demo collector misbehave this way. Demo only.
    case setFaultPreset(FaultPreset)
    /// Poll the remote config feed now instead of waiting for the interval.
    case syncConfig
    /// Leave the dashboard. The caller does a bounded final flush afterwards.
    case quit
}

/// How the demo's collector misbehaves, cycled with `c`.
public enum FaultPreset: String, Sendable, Hashable, CaseIterable {
    /// Answers every batch with 200.
    case none
    /// Fails some requests with 500 or 429.
    case flaky
    /// Refuses every request (503), as in an outage.
    case down
    /// Answers slowly.
    case slow

    /// The preset after this one, wrapping around.
    public var next: FaultPreset {
        let all = FaultPreset.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// What it does, as the dashboard says it.
    public var summary: String {
        switch self {
        case .none: return "collector healthy"
        case .flaky: return "collector flaky: some 500s and 429s"
        case .down: return "collector down: every request fails with 503"
        case .slow: return "collector slow: answers late"
        }
    }
}

/// Whether the dashboard drives an engine (`beacon demo`) or watches a store read-only
/// (`beacon monitor`).
public enum DashboardMode: Sendable, Hashable {
    /// Keys drive the in-process engine, generator and collector.
    case demo
    /// Read-only: engine commands are refused with a message.
    case monitor
}

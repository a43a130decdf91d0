import Beacon

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

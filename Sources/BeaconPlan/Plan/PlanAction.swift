/// What a plan does with an event that has a violation of one kind, as Segment Protocols
/// offers it: let it through (its violations recorded and added to its `context`), remove
/// the unplanned properties, or block it (a dead letter with reason `plan_violation`, never
/// a silent drop).
public enum PlanAction: String, Sendable, Hashable, CaseIterable, Comparable {
    case allow, omit, block

    /// Block outweighs omit, omit outweighs allow.
    public static func < (lhs: PlanAction, rhs: PlanAction) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

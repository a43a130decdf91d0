import BeaconWire

/// What a plan decides about one event: let it go on (the event to send: with its
/// unplanned properties removed, when the plan omits them), or block it, and every
/// violation found, whatever was decided.
public struct PlanVerdict: Sendable, Hashable {
    /// The strongest action its violations call for: `allow` when there are none.
    public var action: PlanAction
    /// Every violation, in the event's order: the unplanned event or properties first,
    /// then the schemas'.
    public var violations: [PlanViolation]
    /// The event to go on with: unchanged, or without its unplanned properties (`omit`).
    public var event: JSONValue
    /// The rule that planned it: its call, name and version (`nil`: unplanned).
    public var rule: TrackingPlan.RuleKey?
    public var version: Int?

    public init(action: PlanAction, violations: [PlanViolation], event: JSONValue, rule: TrackingPlan.RuleKey?, version: Int?) {
        self.action = action
        self.violations = violations
        self.event = event
        self.rule = rule
        self.version = version
    }

    /// Whether the event breaks the plan in any way.
    public var isClean: Bool { violations.isEmpty }
}

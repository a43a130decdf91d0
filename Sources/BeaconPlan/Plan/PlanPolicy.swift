/// What a plan does about each kind of violation (``PlanViolation/Kind``). `omit` is for
/// unplanned properties only; an unplanned event or a schema violation is allowed or blocked.
public struct PlanPolicy: Sendable, Hashable {
    /// An event no rule plans.
    public var unplannedEvent: PlanAction
    /// A property (a trait, for identify and group) its rule does not name.
    public var unplannedProperty: PlanAction
    /// A value that fails its rule's schema, or the common one.
    public var invalid: PlanAction

    public init(unplannedEvent: PlanAction = .allow, unplannedProperty: PlanAction = .allow, invalid: PlanAction = .allow) {
        self.unplannedEvent = unplannedEvent
        self.unplannedProperty = unplannedProperty
        self.invalid = invalid
    }

    /// The action for violations of `kind`.
    public func action(for kind: PlanViolation.Kind) -> PlanAction {
        switch kind {
        case .unplannedEvent: unplannedEvent
        case .unplannedProperty: unplannedProperty
        case .invalid: invalid
        }
    }
}

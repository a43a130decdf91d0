import BeaconWire

/// A tracking plan: for each planned event, a compiled JSON Schema of the whole event (its
/// `properties`, `traits` and `context`), and the schema every event must hold (Segment's
/// `COMMON` rule). Checking an event says whether it is planned and every way it fails.
///
/// Read from Beacon's own plan file (``init(beaconPlan:)``, `Assets/plans/FORMAT.md`), which
/// also says what to do about each kind of violation, or from a Segment tracking plan's
/// rules (``init(segmentRules:)``); ``load(_:)`` tells them apart. ``verdict(for:)`` applies
/// the plan's policy: allow, omit unplanned properties, or block.
///
/// ```swift
/// let plan = try TrackingPlan(segmentRules: rulesJSON)
/// let check = plan.check(["type": "track", "event": "Order Completed", "properties": ["total": "12"]])
/// check.isPlanned       // true
/// check.violations      // [/properties/total: expected number, got string (type)]
/// ```
public struct TrackingPlan: Sendable {
    /// The calls a rule can be for; `alias` has none.
    public enum Call: String, Sendable, Hashable, CaseIterable {
        case track, identify, group, page, screen
    }

    /// One planned event: its call, its name (a track's event, a page's or a screen's name;
    /// `nil`: every event of the call), its version and its schema.
    public struct Rule: Sendable {
        public var call: Call
        public var name: String?
        public var version: Int
        /// Its schemas: one of the whole event (Segment's), or one per part (Beacon's).
        public var schemas: [EventSchema]
        /// The properties (traits for identify and group) the rule names, `nil` when it
        /// names none: an event's others are unplanned properties.
        public var planned: PlannedNames?
        /// What to do about this event's violations, where it differs from the plan's.
        public var policy: PlanPolicy?
        /// What the plan says the event is for.
        public var summary: String?
    }

    /// Which file the plan was read from.
    public enum Format: String, Sendable, Hashable {
        case beacon, segment
    }

    public var format: Format = .segment
    /// The plan's name and version, as its file gives them.
    public var name: String?
    public var version: String?
    /// What to do about each kind of violation (a Segment plan's: allow everything).
    public var policy = PlanPolicy()

    /// The planned events, by call and name.
    public private(set) var rules: [RuleKey: Rule]
    /// What every event must hold, planned or not (empty: nothing).
    public private(set) var common: [EventSchema]

    /// A rule's place in the plan: its call and its name.
    public struct RuleKey: Sendable, Hashable {
        public var call: Call
        public var name: String?

        public init(call: Call, name: String?) {
            self.call = call
            self.name = name
        }
    }

    init(rules: [RuleKey: Rule], common: [EventSchema]) {
        self.rules = rules
        self.common = common
    }

    /// What checking one event found.
    public struct Check: Sendable, Hashable {
        /// Whether a rule plans it (the common rule does not).
        public var isPlanned: Bool
        /// The rule that planned it: its call, name and version.
        public var rule: RuleKey?
        public var version: Int?
        /// Every way it fails its rule and the common rule; for an event no rule plans,
        /// the common rule's only.
        public var violations: [SchemaViolation]
    }

    /// Checks `event`, a Segment event as JSON (`type`, `event` or `name`, `properties`,
    /// `traits`, `context`), against the rule that plans it and the common rule.
    public func check(_ event: JSONValue) -> Check {
        check(event, rule: rule(for: event))
    }

    /// The rule that plans `event`, if one does.
    public func rule(for event: JSONValue) -> Rule? {
        let call = event.objectValue?["type"]?.stringValue.flatMap(Call.init(rawValue:))
        let rule = call.flatMap { call -> Rule? in
            switch call {
            case .track:
                return event.objectValue?["event"]?.stringValue.flatMap { rules[RuleKey(call: .track, name: $0)] }
            case .page, .screen:
                // By the page's or screen's name, else the call's rule without a name.
                let name = event.objectValue?["name"]?.stringValue
                return name.flatMap { rules[RuleKey(call: call, name: $0)] } ?? rules[RuleKey(call: call, name: nil)]
            case .identify, .group:
                return rules[RuleKey(call: call, name: nil)]
            }
        }
        return rule
    }

    func check(_ event: JSONValue, rule: Rule?) -> Check {
        let event = Self.withParts(event)
        var violations = rule?.schemas.flatMap { $0.violations(of: event) } ?? []
        violations += common.flatMap { $0.violations(of: event) }
        return Check(
            isPlanned: rule != nil, rule: rule.map { RuleKey(call: $0.call, name: $0.name) }, version: rule?.version,
            violations: violations)
    }

    /// `event` with an empty object for each of `properties`, `traits` and `context` it
    /// lacks: a library that sends none means none, and a rule's `required` still applies.
    static func withParts(_ event: JSONValue) -> JSONValue {
        guard case .object(var fields) = event else { return event }
        let call = fields["type"]?.stringValue
        let part = call == "identify" || call == "group" ? "traits" : "properties"
        if fields[part] == nil || fields[part] == .null { fields[part] = .object([:]) }
        if fields["context"] == nil || fields["context"] == .null { fields["context"] = .object([:]) }
        return .object(fields)
    }
}

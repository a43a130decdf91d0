import BeaconWire

extension TrackingPlan {
    /// Checks `event` and applies the plan's policy (the event's rule's, where it has one):
    /// an unplanned event, unplanned properties and schema violations each call for their
    /// action; the strongest wins. `omit` removes the unplanned properties before the
    /// schemas are checked, so an `additionalProperties: false` does not block what was
    /// omitted.
    public func verdict(for event: JSONValue) -> PlanVerdict {
        let rule = rule(for: event)
        let policy = rule?.policy ?? self.policy
        var violations: [PlanViolation] = []
        var action = PlanAction.allow
        var event = event
        if rule == nil {
            violations.append(PlanViolation(kind: .unplannedEvent, path: "", keyword: nil, message: "no rule of the plan is for \(Self.describe(event))"))
            action = max(action, policy.unplannedEvent)
        }
        if let planned = rule?.planned, case .object(var fields) = event {
            let part = rule?.call == .identify || rule?.call == .group ? "traits" : "properties"
            if case .object(var values) = fields[part] {
                let unplanned = values.keys.filter { !planned.contains($0) }.sorted()
                for name in unplanned {
                    violations.append(PlanViolation(
                        kind: .unplannedProperty, path: "/\(part)/" + JSONPointer.escape(name), keyword: nil,
                        message: policy.unplannedProperty == .omit ? "not in the plan (omitted)" : "not in the plan"))
                }
                if !unplanned.isEmpty {
                    action = max(action, policy.unplannedProperty)
                    if policy.unplannedProperty == .omit {
                        for name in unplanned { values[name] = nil }
                        fields[part] = .object(values)
                        event = .object(fields)
                    }
                }
            }
        }
        let invalid = check(event, rule: rule).violations.map(PlanViolation.init)
        if !invalid.isEmpty { action = max(action, policy.invalid) }
        // `omit` is what the unplanned properties call for; a clean event after it goes on as allowed.
        return PlanVerdict(
            action: action, violations: violations + invalid, event: event,
            rule: rule.map { RuleKey(call: $0.call, name: $0.name) }, version: rule?.version)
    }

    /// `track "Order Completed"`, `identify`, `page "Home"`: what an event is, for a message.
    static func describe(_ event: JSONValue) -> String {
        let type = event.objectValue?["type"]?.stringValue ?? "an event without a type"
        let name = (type == "track" ? event.objectValue?["event"] : event.objectValue?["name"])?.stringValue
        return name.map { "\(type) \"\($0)\"" } ?? type
    }
}

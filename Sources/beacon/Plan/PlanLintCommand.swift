import ArgumentParser
import BeaconPlan
import BeaconWire

/// `beacon plan lint PLAN`: reads a plan as `track`, the agent and the collector would,
/// and says what it plans, or exactly where it is wrong.
struct PlanLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Read a tracking plan and say what it plans, or where it is wrong.",
        discussion: """
            Every schema is compiled, every pattern and $ref checked, every field of a Beacon \
            plan read: an unknown field, a keyword Beacon cannot apply or a pattern that could \
            take exponential time is refused with its place in the file (a JSON Pointer), and \
            the command exits 2. Exit 0: the plan loads; its events, policy and any warnings \
            are listed.
            """)

    @Argument(help: "The plan: a Beacon plan (JSON) or a Segment tracking plan's rules.")
    var plan: String

    @Flag(help: "Print JSON: format, name, version, policy, events (call, name, version, planned properties), warnings.")
    var json = false

    func run() throws {
        let loaded = try Self.load(plan)
        let warnings = Self.warnings(loaded)
        let rules = loaded.rules.values.sorted { ($0.call.rawValue, $0.name ?? "") < ($1.call.rawValue, $1.name ?? "") }
        if json {
            Output.json(JSONValue.object([
                "format": .string(loaded.format.rawValue),
                "name": loaded.name.map(JSONValue.string) ?? .null,
                "version": loaded.version.map(JSONValue.string) ?? .null,
                "policy": Self.json(loaded.policy),
                "common": .bool(!loaded.common.isEmpty),
                "events": .array(rules.map { rule in
                    .object([
                        "call": .string(rule.call.rawValue), "name": rule.name.map(JSONValue.string) ?? .null,
                        "version": .int(rule.version),
                        "plannedProperties": rule.planned.map { .array($0.names.sorted().map(JSONValue.string)) } ?? .null,
                        "policy": rule.policy.map(Self.json) ?? .null,
                    ])
                }),
                "warnings": .array(warnings.map(JSONValue.string)),
            ]).jsonString)
            return
        }
        let title = [loaded.name.map { "\"\(PrintableText.line($0))\"" }, loaded.version.map { "version \(PrintableText.line($0))" }]
            .compactMap { $0 }.joined(separator: ", ")
        Output.line("\(plan): a \(loaded.format == .beacon ? "Beacon" : "Segment") plan\(title.isEmpty ? "" : " (\(title))"), \(rules.count) event\(rules.count == 1 ? "" : "s")\(loaded.common.isEmpty ? "" : " and a common rule")")
        Output.line("policy: unplanned events \(loaded.policy.unplannedEvent.rawValue), unplanned properties \(loaded.policy.unplannedProperty.rawValue), invalid values \(loaded.policy.invalid.rawValue)")
        for rule in rules {
            let name = rule.name.map { " \"\(PrintableText.line($0))\"" } ?? (rule.call == .page || rule.call == .screen ? " *" : "")
            let properties = rule.planned.map { "\($0.names.count) planned propert\($0.names.count == 1 ? "y" : "ies")" } ?? "any properties"
            let own = rule.policy.map { ", its own policy: unplanned properties \($0.unplannedProperty.rawValue), invalid \($0.invalid.rawValue)" } ?? ""
            Output.line("  \(rule.call.rawValue)\(name) v\(rule.version): \(properties)\(own)")
        }
        for warning in warnings { Output.line("warning: \(warning)") }
    }

    /// The plan at `path`, or exit 2 with where it is wrong.
    static func load(_ path: String) throws -> TrackingPlan {
        do {
            return try TrackingPlan.load(contentsOf: path)
        } catch {
            let place = error.path.isEmpty ? "" : " at \(PrintableText.line(error.path))"
            throw CLIError.badInput("\(path)\(place): \(PrintableText.line(error.reason))")
        }
    }

    /// What loads but is likely a mistake.
    static func warnings(_ plan: TrackingPlan) -> [String] {
        var warnings: [String] = []
        if plan.rules.isEmpty { warnings.append("the plan plans no event: every event is unplanned") }
        if plan.policy.unplannedProperty == .omit || plan.policy.unplannedProperty == .block {
            let open = plan.rules.values.filter { $0.planned == nil && $0.policy?.unplannedProperty == nil }
                .map { rule in rule.name.map { "\(rule.call.rawValue) \"\(PrintableText.line($0))\"" } ?? rule.call.rawValue }.sorted()
            if !open.isEmpty {
                warnings.append("unplanned properties are \(plan.policy.unplannedProperty == .omit ? "omitted" : "blocked"), but \(open.prefix(5).joined(separator: ", "))\(open.count > 5 ? " and \(open.count - 5) more" : "") name no properties: any property goes")
            }
        }
        return warnings
    }

    static func json(_ policy: PlanPolicy) -> JSONValue {
        .object([
            "unplannedEvent": .string(policy.unplannedEvent.rawValue), "unplannedProperty": .string(policy.unplannedProperty.rawValue),
            "invalid": .string(policy.invalid.rawValue),
        ])
    }
}

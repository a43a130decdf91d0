import BeaconWire
import Foundation

/// What checking recorded events against a plan found (`beacon plan check`): how many
/// were checked, what the plan's policy would do with them, the violations per planned
/// event (the unplanned ones together), and the violating events themselves, the first
/// ``maxListed`` of them kept whole.
///
/// ```swift
/// var report = PlanCheckReport(plan: plan)
/// report.add(event, at: PlanCheckReport.Place(source: "events.ndjson", line: 3))
/// report.holds   // false when any event breaks the plan, or a line was not an event
/// ```
public struct PlanCheckReport: Sendable {
    /// Where an event was read: a file (or `-`, or the store) and its line (or sequence).
    public struct Place: Sendable, Hashable, CustomStringConvertible {
        public var source: String
        public var line: Int64

        public init(source: String, line: Int64) {
            self.source = source
            self.line = line
        }

        public var description: String { "\(source):\(line)" }
    }

    /// One event that breaks the plan.
    public struct Finding: Sendable {
        public var place: Place
        /// `track "Order Completed"`, `identify`, `page "Home"`.
        public var event: String
        /// Its tally's label: the rule's, or `unplanned`.
        public var label: String
        public var messageId: String?
        public var verdict: PlanVerdict
    }

    /// Counts for one planned event (the key of its rule), or for the unplanned ones.
    public struct Tally: Sendable, Hashable {
        public var checked = 0
        public var violating = 0
        /// Violations by kind.
        public var violations: [PlanViolation.Kind: Int] = [:]

        public init(checked: Int = 0, violating: Int = 0, violations: [PlanViolation.Kind: Int] = [:]) {
            self.checked = checked
            self.violating = violating
            self.violations = violations
        }
    }

    /// A line that holds no event: not JSON, not an object, not UTF-8, too long.
    public struct Unreadable: Sendable, Hashable {
        public var place: Place
        public var reason: String
    }

    public static let maxListed = 1_000

    public let plan: TrackingPlan
    public private(set) var checked = 0
    /// What the plan's policy would do, by action.
    public private(set) var actions: [PlanAction: Int] = [:]
    /// By planned event (`track "Order Completed"`), and `unplanned` for the rest.
    public private(set) var tallies: [String: Tally] = [:]
    public private(set) var findings: [Finding] = []
    /// Violating events, those past ``maxListed`` included.
    public private(set) var violating = 0
    public private(set) var unreadable: [Unreadable] = []
    public private(set) var unreadableCount = 0

    public init(plan: TrackingPlan) {
        self.plan = plan
    }

    /// Checks one event read at `place`. A Segment batch (`{"batch": […]}`) is its events.
    public mutating func add(_ value: JSONValue, at place: Place) {
        if let batch = value.objectValue?["batch"]?.arrayValue, value.objectValue?["type"] == nil {
            for event in batch { add(event, at: place) }
            return
        }
        guard value.objectValue != nil else {
            addUnreadable(at: place, reason: "a \(value.typeName), not an event (a JSON object)")
            return
        }
        let verdict = plan.verdict(for: value)
        checked += 1
        actions[verdict.action, default: 0] += 1
        let label = verdict.rule.map(Self.label) ?? "unplanned"
        var tally = tallies[label, default: Tally()]
        tally.checked += 1
        if !verdict.isClean {
            tally.violating += 1
            for violation in verdict.violations { tally.violations[violation.kind, default: 0] += 1 }
            violating += 1
            if findings.count < Self.maxListed {
                findings.append(Finding(
                    place: place, event: TrackingPlan.describe(value), label: label, messageId: value.objectValue?["messageId"]?.stringValue,
                    verdict: verdict))
            }
        }
        tallies[label] = tally
    }

    /// Checks the event (or batch) in one line of JSON; a line that is not one is
    /// counted as unreadable, with why.
    public mutating func add(line bytes: [UInt8], at place: Place) {
        let data = Data(bytes)
        guard String(validating: data, as: UTF8.self) != nil else {
            addUnreadable(at: place, reason: "not valid UTF-8 (byte \(TrackingPlan.validUTF8Prefix(data) + 1))")
            return
        }
        do {
            add(try JSONDecoder().decode(JSONValue.self, from: data), at: place)
        } catch {
            addUnreadable(at: place, reason: "not JSON: \(TrackingPlan.describe(decoding: error))")
        }
    }

    public mutating func addUnreadable(at place: Place, reason: String) {
        unreadableCount += 1
        if unreadable.count < Self.maxListed { unreadable.append(Unreadable(place: place, reason: reason)) }
    }

    /// Whether every event holds to the plan and every line was an event.
    public var holds: Bool { violating == 0 && unreadableCount == 0 }

    /// `track "Order Completed"`, `identify`, `page *`.
    static func label(_ key: TrackingPlan.RuleKey) -> String {
        key.name.map { "\(key.call.rawValue) \"\($0)\"" } ?? (key.call == .page || key.call == .screen ? "\(key.call.rawValue) *" : key.call.rawValue)
    }
}

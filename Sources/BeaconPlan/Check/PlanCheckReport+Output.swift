import BeaconWire

extension PlanCheckReport {
    /// The report for a terminal: each violating event with its violations, then the
    /// totals and the counts by event.
    public var text: String {
        var lines: [String] = []
        for finding in findings {
            lines.append("\(finding.place)  \(PrintableText.line(finding.event))  \(Self.would(finding.verdict.action))")
            for violation in finding.verdict.violations { lines.append("    " + PrintableText.line(violation.description)) }
        }
        if violating > findings.count { lines.append("… and \(violating - findings.count) more violating events, not listed") }
        if !unreadable.isEmpty { lines.append(unreadableCount == 1 ? "Not an event:" : "Not events:") }
        for line in unreadable { lines.append("\(line.place)  \(PrintableText.line(line.reason))") }
        if unreadableCount > unreadable.count { lines.append("… and \(unreadableCount - unreadable.count) more lines that are not events") }
        if !lines.isEmpty { lines.append("") }
        let noun = checked == 1 ? "event" : "events"
        var summary = "checked \(checked) \(noun) against \(planName): \(checked - violating) hold, \(violating) break the plan"
        if violating > 0 {
            let would = PlanAction.allCases.compactMap { action in actions[action].map { "\(action.rawValue) \($0)" } }
            summary += " (the plan would \(would.joined(separator: ", ")))"
        }
        if unreadableCount > 0 { summary += "; \(unreadableCount) line\(unreadableCount == 1 ? "" : "s") not an event" }
        lines.append(summary)
        let width = min(40, tallies.keys.map(\.count).max() ?? 0)
        for (label, tally) in tallies.sorted(by: { $0.key < $1.key }) {
            var line = "  " + PrintableText.line(label).padding(toLength: max(width, label.count), withPad: " ", startingAt: 0)
                + "  \(tally.checked) checked"
            if tally.violating > 0 {
                let kinds = PlanViolation.Kind.allCases.compactMap { kind in tally.violations[kind].map { "\($0) \(kind.rawValue)" } }
                line += ", \(tally.violating) violating: " + kinds.joined(separator: ", ")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The report as JSON: `plan`, `checked`, `holds`, `violating`, `actions`, `events`
    /// (per event label), `findings` (the first ``maxListed``), `unreadable`.
    public var json: JSONValue {
        .object([
            "plan": .object([
                "name": plan.name.map(JSONValue.string) ?? .null, "version": plan.version.map(JSONValue.string) ?? .null,
                "format": .string(plan.format.rawValue), "rules": .int(plan.rules.count),
            ]),
            "checked": .int(checked),
            "holds": .bool(holds),
            "violating": .int(violating),
            "actions": .object(Dictionary(uniqueKeysWithValues: PlanAction.allCases.map { ($0.rawValue, .int(actions[$0] ?? 0)) })),
            "events": .object(tallies.mapValues { tally in
                .object([
                    "checked": .int(tally.checked), "violating": .int(tally.violating),
                    "violations": .object(Dictionary(uniqueKeysWithValues: PlanViolation.Kind.allCases.map { ($0.rawValue, .int(tally.violations[$0] ?? 0)) })),
                ])
            }),
            "findings": .array(findings.map { finding in
                .object([
                    "source": .string(finding.place.source), "line": .int(Int(clamping: finding.place.line)),
                    "event": .string(finding.event), "messageId": finding.messageId.map(JSONValue.string) ?? .null,
                    "action": .string(finding.verdict.action.rawValue),
                    "violations": .array(finding.verdict.violations.map { violation in
                        .object([
                            "kind": .string(violation.kind.rawValue), "path": .string(violation.path),
                            "keyword": violation.keyword.map(JSONValue.string) ?? .null, "message": .string(violation.message),
                        ])
                    }),
                ])
            }),
            "findingsTruncated": .bool(violating > findings.count),
            "unreadable": .array(unreadable.map { line in
                .object(["source": .string(line.place.source), "line": .int(Int(clamping: line.place.line)), "reason": .string(line.reason)])
            }),
            "unreadableCount": .int(unreadableCount),
        ])
    }

    /// The report as JUnit XML, for CI systems: one test case per planned event (and one
    /// for the unplanned ones, and one for the lines that are not events), failing with
    /// its violating events listed (the first 20).
    public var junit: String {
        let cases = tallies.sorted(by: { $0.key < $1.key })
        let failures = cases.filter { $0.value.violating > 0 }.count + (unreadableCount > 0 ? 1 : 0)
        let suite = Self.xml("plan \(planName)")
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="beacon plan check" tests="\#(cases.count + 1)" failures="\#(failures)" errors="0">"#,
            #"  <testsuite name="\#(suite)" tests="\#(cases.count + 1)" failures="\#(failures)" errors="0" skipped="0" time="0">"#,
        ]
        for (label, tally) in cases {
            let opening = #"    <testcase classname="\#(suite)" name="\#(Self.xml(label))" time="0""#
            guard tally.violating > 0 else {
                lines.append(opening + "/>")
                continue
            }
            let listed = findings.filter { $0.label == label }.prefix(20).map { finding in
                "\(finding.place) \(finding.event): " + finding.verdict.violations.map(\.description).joined(separator: "; ")
            }
            let message = "\(tally.violating) of \(tally.checked) events break the plan"
            lines.append(opening + ">")
            lines.append(#"      <failure message="\#(Self.xml(message))" type="plan_violation">\#(Self.xml(listed.joined(separator: "\n"), keepNewlines: true))</failure>"#)
            lines.append("    </testcase>")
        }
        let readable = #"    <testcase classname="\#(suite)" name="every line is an event" time="0""#
        if unreadableCount > 0 {
            let listed = unreadable.prefix(20).map { "\($0.place): \($0.reason)" }
            lines.append(readable + ">")
            lines.append(#"      <failure message="\#(unreadableCount == 1 ? "1 line is not an event" : "\(unreadableCount) lines are not events")" type="unreadable">\#(Self.xml(listed.joined(separator: "\n"), keepNewlines: true))</failure>"#)
            lines.append("    </testcase>")
        } else {
            lines.append(readable + "/>")
        }
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Why the events do not hold, in one line: `3 of 5 events break the plan; 1 line is not an event`.
    public var failureSummary: String {
        var parts: [String] = []
        if violating > 0 { parts.append("\(violating) of \(checked) event\(checked == 1 ? "" : "s") break\(violating == 1 ? "s" : "") \(planName)") }
        if unreadableCount > 0 { parts.append(unreadableCount == 1 ? "1 line is not an event" : "\(unreadableCount) lines are not events") }
        return parts.isEmpty ? "every event holds" : parts.joined(separator: "; ")
    }

    var planName: String {
        [plan.name ?? "the plan", plan.version].compactMap { $0 }.joined(separator: " ")
    }

    static func would(_ action: PlanAction) -> String {
        switch action {
        case .allow: "allowed"
        case .omit: "omitted properties"
        case .block: "blocked"
        }
    }

    /// `text` escaped for XML 1.0, with what it forbids (control characters, U+FFFE,
    /// U+FFFF) dropped and, unless kept, line breaks made spaces.
    static func xml(_ text: String, keepNewlines: Bool = false) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\n" where keepNewlines: result += "\n"
            case "\t", "\n", "\r": result += " "
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// Runs of `beacon simulate` as JUnit XML, the report format CI systems read: one
/// `<testsuite>` per run (its variant and seed), one `<testcase>` per invariant and
/// expectation, a `<failure>` with the check's detail for each that did not hold.
///
/// ```xml
/// <testsuites name="beacon simulate" tests="7" failures="1">
///   <testsuite name="Offline burst · b500 · seed 7" tests="7" failures="1" time="15.3">
///     <testcase classname="invariants" name="accounted-for:main" time="0"/>
///     <testcase classname="expectations" name="maxDepth" time="0">
///       <failure message="deepest queue sampled 2,000; expected at most 1,000" type="expectation">…</failure>
///     </testcase>
///   </testsuite>
/// </testsuites>
/// ```
///
/// Text from the scenario (names, details) is stripped of what XML 1.0 forbids and escaped.
public enum SimulationJUnit {
    /// One run to report: its suite's name and its report.
    public struct Run: Sendable {
        public var name: String
        public var report: SimulationReport

        public init(name: String, report: SimulationReport) {
            self.name = name
            self.report = report
        }
    }

    /// The document for `runs`.
    public static func xml(_ runs: [Run]) -> String {
        let tests = runs.reduce(0) { $0 + $1.report.invariants.count + $1.report.expectations.count }
        let failures = runs.reduce(0) { $0 + $1.report.failures.count }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="beacon simulate" tests="\#(tests)" failures="\#(failures)" errors="0">"#,
        ]
        for run in runs {
            let report = run.report
            let checks = report.invariants.map { ("invariants", $0) } + report.expectations.map { ("expectations", $0) }
            lines.append(
                #"  <testsuite name="\#(attribute(run.name))" tests="\#(checks.count)" failures="\#(report.failures.count)" errors="0" skipped="0" time="\#(seconds(report.seconds))">"#)
            for (kind, check) in checks {
                let opening = #"    <testcase classname="\#(kind)" name="\#(attribute(check.name))" time="0""#
                if check.holds {
                    lines.append(opening + "/>")
                } else {
                    lines.append(opening + ">")
                    let detail = attribute(check.detail)
                    lines.append(
                        #"      <failure message="\#(detail)" type="\#(kind == "invariants" ? "invariant" : "expectation")">\#(detail)</failure>"#)
                    lines.append("    </testcase>")
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func attribute(_ text: String) -> String {
        ChartText.xmlEscaped(ChartText.xmlSafe(text))
    }

    /// Seconds with three decimals, `0` for what is not a finite non-negative number.
    static func seconds(_ value: Double) -> String {
        guard value.isFinite, value >= 0, value < 1e12 else { return "0" }
        let millis = Int64((value * 1_000).rounded())  // checked: 0 <= value < 1e12
        let fraction = String(millis % 1_000)
        return "\(millis / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}

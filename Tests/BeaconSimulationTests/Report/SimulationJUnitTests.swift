import BeaconSimulation
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The JUnit XML of runs: well-formed whatever the scenario's text holds, its counts the
/// elements it has, one case per check, failures with their detail, in the shape the
/// common JUnit schema gives (testsuites > testsuite > testcase > failure).
@Suite struct SimulationJUnitTests {
    /// Elements in document order, with their attributes and text.
    final class Reader: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String], parent: String?)] = []
        var texts: [String: String] = [:]
        private var stack: [String] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((name, attributes, stack.last))
            stack.append(name)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = stack.last { texts[last, default: ""] += string }
        }
    }

    static func report(failing detail: String, seconds: Double = 12.3456) -> SimulationReport {
        SimulationReport(
            scenario: "s", seed: 1, timeScale: 1, seconds: seconds, steps: [], totals: SimulationTotals(),
            drain: SimulationDrain(recoveredAt: 1, seconds: 1, emptied: true),
            invariants: [
                SimulationCheck(name: "accounted-for:main", holds: true, detail: "ok"),
                SimulationCheck(name: "reasons:main", holds: true, detail: "ok"),
            ],
            expectations: [SimulationCheck(name: "maxDepth", holds: false, detail: detail)],
            timeline: SimulationTimeline())
    }

    static func parse(_ xml: String) -> Reader? {
        let reader = Reader()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = reader
        return parser.parse() ? reader : nil
    }

    @Test func aCasePerCheckAndAFailureWithItsDetail() throws {
        let hostile = "depth <2,000> & \"quotes\" 'and' \u{0}NUL \u{1B}[31m ESC \u{FFFE} é 🚂"
        let xml = SimulationJUnit.xml([
            .init(name: "train <b500> & \"seed\" 7\u{0}", report: Self.report(failing: hostile)),
            .init(name: "train b50 · seed 8", report: Self.report(failing: "expected at most 1,000", seconds: .nan)),
        ])
        let reader = try #require(Self.parse(xml), "not well-formed XML:\n\(xml)")
        let root = try #require(reader.elements.first)
        #expect(root.name == "testsuites" && root.parent == nil)
        let suites = reader.elements.filter { $0.name == "testsuite" }
        let cases = reader.elements.filter { $0.name == "testcase" }
        let failures = reader.elements.filter { $0.name == "failure" }
        #expect(suites.count == 2 && cases.count == 6 && failures.count == 2)
        #expect(root.attributes["tests"] == "6" && root.attributes["failures"] == "2" && root.attributes["errors"] == "0")
        #expect(suites.allSatisfy { $0.parent == "testsuites" && $0.attributes["tests"] == "3" && $0.attributes["failures"] == "1" })
        #expect(cases.allSatisfy { $0.parent == "testsuite" && !($0.attributes["name"] ?? "").isEmpty && $0.attributes["classname"] != nil })
        #expect(failures.allSatisfy { $0.parent == "testcase" && $0.attributes["type"] == "expectation" })
        #expect(suites.first?.attributes["name"] == "train <b500> & \"seed\" 7", "escaped, and the NUL dropped")
        #expect(suites.first?.attributes["time"] == "12.346" && suites.last?.attributes["time"] == "0")
        let message = try #require(failures.first?.attributes["message"])
        #expect(message.contains("depth <2,000> & \"quotes\" 'and'") && message.contains("é 🚂"), "\(message)")
        #expect(!message.contains("\u{0}") && !message.contains("\u{1B}"))
    }

    @Test func noRunsIsAnEmptyButValidDocument() throws {
        let reader = try #require(Self.parse(SimulationJUnit.xml([])))
        #expect(reader.elements.map(\.name) == ["testsuites"])
        #expect(reader.elements.first?.attributes["tests"] == "0")
    }
}

import BeaconPlan
import BeaconWire
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What `beacon plan check` reports: every line read is an event checked, a batch's events
/// each, or a line that is not an event with why; the tallies add up to what was read;
/// the text, JSON and JUnit forms say the same, whatever the events' text holds.
@Suite struct PlanCheckReportTests {
    static func place(_ line: Int64) -> PlanCheckReport.Place { PlanCheckReport.Place(source: "events.ndjson", line: line) }

    static let viewed = #"{"type":"track","event":"Product Viewed","properties":{"product_id":"p1","price":3.5}}"#
    static let broken = #"{"type":"track","event":"Product Viewed","properties":{"price":-1,"colour":"red"}}"#
    static let unplanned = #"{"type":"track","event":"Order Complete","properties":{}}"#

    static func report(_ lines: [String]) throws -> PlanCheckReport {
        var report = PlanCheckReport(plan: try BeaconPlanFormatTests.shop())
        for (index, line) in lines.enumerated() { report.add(line: Array(line.utf8), at: place(Int64(index + 1))) }
        return report
    }

    @Test func cleanEventsHold() throws {
        let report = try Self.report([Self.viewed, Self.viewed])
        #expect(report.holds && report.checked == 2 && report.violating == 0 && report.findings.isEmpty)
        #expect(report.tallies == [#"track "Product Viewed""#: PlanCheckReport.Tally(checked: 2)])
        #expect(report.actions == [.allow: 2])
    }

    @Test func eachViolatingEventIsListedWithItsPlaceAndEveryViolation() throws {
        let report = try Self.report([Self.viewed, Self.broken, Self.unplanned])
        #expect(!report.holds && report.checked == 3 && report.violating == 2)
        #expect(report.findings.map(\.place.line) == [2, 3])
        let first = try #require(report.findings.first)
        #expect(first.label == #"track "Product Viewed""# && first.verdict.action == .block)
        #expect(Set(first.verdict.violations.map(\.path)) == ["/properties/colour", "/properties/price", "/properties"])
        #expect(report.findings.last?.label == "unplanned")
        #expect(report.findings.last?.verdict.violations.map(\.kind) == [.unplannedEvent])
        let tally = try #require(report.tallies[#"track "Product Viewed""#])
        #expect(tally.checked == 2 && tally.violating == 1 && tally.violations == [.unplannedProperty: 1, .invalid: 2])
        // Every event checked is counted once: by its label, and by what the plan would do.
        #expect(report.tallies.values.map(\.checked).reduce(0, +) == report.checked)
        #expect(report.actions.values.reduce(0, +) == report.checked)
    }

    @Test func aBatchLineIsItsEventsEachCheckedAtItsLine() throws {
        let batch = #"{"batch":[\#(Self.viewed),\#(Self.broken),{"type":"identify","userId":"u","traits":{"plan":"gold"}}]}"#
        let report = try Self.report([batch])
        #expect(report.checked == 3 && report.violating == 2)
        #expect(report.findings.map(\.place) == [Self.place(1), Self.place(1)])
        #expect(report.findings.map(\.label) == [#"track "Product Viewed""#, "identify"])
    }

    @Test(arguments: [
        ([0x7B, 0x22, 0xFF, 0x22, 0x7D] as [UInt8], "not valid UTF-8 (byte 3)"),
        (Array("not json".utf8), "not JSON"),
        (Array("[1,2]".utf8), "not an event"),
        (Array("1e300".utf8), "not an event"),
        (Array("\"\u{0}\"".utf8), "not JSON"),
        (Array(#""\u0000""#.utf8), "not an event"),
        (Array(#"{"batch":[1,null]}"#.utf8), "not an event"),
        (Array(String(repeating: "[", count: 100_000).utf8), "not JSON"),
    ])
    func aLineThatIsNotAnEventIsCountedWithWhy(line: [UInt8], reason: String) throws {
        var report = PlanCheckReport(plan: try BeaconPlanFormatTests.shop())
        report.add(line: line, at: Self.place(7))
        #expect(!report.holds && report.checked == 0)
        #expect(report.unreadableCount >= 1 && report.unreadable.allSatisfy { $0.place == Self.place(7) })
        #expect(report.unreadable.first?.reason.contains(reason) == true, "\(report.unreadable)")
        #expect(report.failureSummary.contains("not an event") || report.failureSummary.contains("not events"))
    }

    @Test func theListIsBoundedButTheCountsAreNot() throws {
        var report = PlanCheckReport(plan: try BeaconPlanFormatTests.shop())
        let total = PlanCheckReport.maxListed + 500
        for line in 1...total { report.add(line: Array(Self.unplanned.utf8), at: Self.place(Int64(line))) }
        #expect(report.findings.count == PlanCheckReport.maxListed && report.violating == total)
        #expect(report.text.contains("… and 500 more violating events, not listed"))
        #expect(report.json.objectValue?["findingsTruncated"] == .bool(true))
    }

    @Test func theTextListsPlacesAndTotalsWithOutsideTextEscaped() throws {
        let hostile = #"{"type":"track","event":"Bad\u001b[31mName\nline","properties":{}}"#
        let report = try Self.report([Self.viewed, Self.broken, hostile, "nope"])
        let text = report.text
        #expect(text.contains("events.ndjson:2  track \"Product Viewed\"  blocked"))
        #expect(text.contains("    /properties/price: "))
        #expect(text.contains("Not an event:\nevents.ndjson:4  not JSON"))
        #expect(text.contains("checked 3 events against shop 2026-12-04.1: 1 hold, 2 break the plan (the plan would allow 1, block 2); 1 line not an event"))
        #expect(!text.unicodeScalars.contains("\u{1B}"), "an escape character of an event's name reached the terminal")
        #expect(report.failureSummary == "2 of 3 events break shop 2026-12-04.1; 1 line is not an event")
    }

    @Test func theJSONSaysWhatTheTextSays() throws {
        let report = try Self.report([Self.viewed, Self.broken, Self.unplanned, "[]"])
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(report.json.jsonString.utf8))
        let object = try #require(decoded.objectValue)
        #expect(object["checked"] == .int(3) && object["violating"] == .int(2) && object["holds"] == .bool(false))
        #expect(object["actions"] == ["allow": 1, "block": 2, "omit": 0])
        #expect(object["findings"]?.arrayValue?.compactMap { $0.objectValue?["line"] } == [.int(2), .int(3)])
        #expect(object["unreadable"]?.arrayValue?.first?.objectValue?["line"] == .int(4))
        #expect(object["plan"]?.objectValue?["name"] == "shop")
        let events = try #require(object["events"]?.objectValue)
        #expect(events["unplanned"]?.objectValue?["checked"] == .int(1))
    }

    @Test func theJUnitIsWellFormedWithACasePerPlannedEventAndItsFailures() throws {
        let hostile = #"{"type":"track","event":"<b> & \"q\" \u0000 \uFFFE","properties":{}}"#
        let report = try Self.report([Self.viewed, Self.broken, hostile, "nope"])
        let xml = report.junit
        #if canImport(FoundationXML)
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))\n\(xml)")
        #endif
        // Two labels (Product Viewed, unplanned) and "every line is an event": all three fail.
        #expect(xml.contains(#"<testsuites name="beacon plan check" tests="3" failures="3" errors="0">"#), "\(xml)")
        #expect(xml.contains(#"name="track &quot;Product Viewed&quot;""#))
        #expect(xml.contains(#"<failure message="1 of 2 events break the plan" type="plan_violation">events.ndjson:2"#))
        #expect(xml.contains(#"<failure message="1 line is not an event" type="unreadable">events.ndjson:4"#))
        #expect(xml.contains("&lt;b&gt; &amp; &quot;q&quot;") && !xml.unicodeScalars.contains("\u{0}"))
        let clean = try Self.report([Self.viewed]).junit
        #expect(clean.contains(#"failures="0""#) && !clean.contains("<failure"))
    }
}

import Foundation
import Testing

/// `beacon plan lint` and `beacon plan check` as a developer and a CI job run them: the
/// example plan lints, a broken one is refused naming its place, recorded events are
/// checked from files, standard input or a store, and the exit code says whether they hold.
@Suite("beacon plan lint and check")
struct PlanCommandTests {
    static let shop = DocsAgreementTests.root.appendingPathComponent("Assets/plans/shop.json").path

    static let clean = #"{"type":"track","event":"Product Viewed","properties":{"product_id":"p1","price":3.5}}"#
    static let broken = #"{"type":"track","event":"Product Viewed","properties":{"price":-1,"colour":"red"}}"#
    static let unplanned = #"{"type":"track","event":"Order Complete","properties":{}}"#

    static func write(_ text: String, _ name: String, in directory: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theExamplePlanLintsAndListsWhatItPlans() async throws {
        let text = try await BeaconProcess.run(["plan", "lint", Self.shop])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains(#"a Beacon plan ("shop", version 2026-12-04.1)"#))
        #expect(text.stdout.contains("policy: unplanned events block, unplanned properties omit, invalid values block"))
        #expect(text.stdout.contains(#"track "Order Completed" v1"#))
        let json = try await BeaconProcess.run(["plan", "lint", "--json", Self.shop])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "beacon" && object["name"] as? String == "shop")
        #expect((object["events"] as? [[String: Any]])?.count == 7)
    }

    @Test func aBrokenPlanIsRefusedNamingItsPlace() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let unknown = try Self.write(#"{"beaconPlan": 1, "track": {"A": {}}, "colour": 1}"#, "unknown.json", in: directory)
        let badType = try Self.write(
            #"{"beaconPlan": 1, "track": {"A": {"properties": {"properties": {"x": {"type": "strin"}}}}}}"#, "type.json", in: directory)
        let notUTF8 = directory + "/bytes.json"
        try Data([0x7B, 0x22, 0xFF, 0x22, 0x7D]).write(to: URL(fileURLWithPath: notUTF8))
        for (path, expected) in [
            (unknown, "at /colour: not a field of a Beacon plan"),
            (badType, "at /track/A/properties/properties/x/type:"),
            (notUTF8, "an invalid byte at offset 2"),
            (directory + "/missing.json", "cannot read"),
        ] {
            let result = try await BeaconProcess.run(["plan", "lint", path])
            #expect(result.status == 2 && result.stdout.isEmpty, "\(path): \(result.status) \(result.stdout)")
            #expect(result.stderr.contains(expected), "\(path): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
    }

    @Test func aPlanLargerThanTheLimitIsRefusedWithoutReadingIt() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let path = directory + "/huge.json"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 64 << 20)  // sparse: 64 MiB of zeros
        try handle.close()
        let result = try await BeaconProcess.run(["plan", "lint", path])
        #expect(result.status == 2 && result.stderr.contains("larger than the 16 MiB a plan may be"), "\(result.stderr)")
    }

    @Test func eventsFromAFileAreCheckedAndTheirViolationsListed() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let events = try Self.write([Self.clean, Self.broken, "", Self.unplanned, "not json"].joined(separator: "\n") + "\n", "events.ndjson", in: directory)
        let junit = directory + "/plan.xml"
        let result = try await BeaconProcess.run(["plan", "check", Self.shop, events, "--junit", junit])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("\(events):2  track \"Product Viewed\"  blocked"), "\(result.stdout)")
        #expect(result.stdout.contains("    /properties/price: "))
        #expect(result.stdout.contains("\(events):4  track \"Order Complete\"  blocked"))
        #expect(result.stdout.contains("Not an event:\n\(events):5  not JSON"))
        #expect(result.stdout.contains("checked 3 events against shop 2026-12-04.1: 1 hold, 2 break the plan"))
        #expect(result.stderr == "beacon: 2 of 3 events break shop 2026-12-04.1; 1 line is not an event\n", "\(result.stderr)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuites name="beacon plan check" tests="3" failures="3" errors="0">"#), "\(xml)")
    }

    @Test func cleanEventsOnStandardInputHold() async throws {
        let result = try await BeaconProcess.run(["plan", "check", Self.shop], stdin: Self.clean + "\n" + Self.clean + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("checked 2 events against shop 2026-12-04.1: 2 hold, 0 break the plan"))
        #expect(result.stderr.isEmpty)
        let dash = try await BeaconProcess.run(["plan", "check", Self.shop, "-", "--json"], stdin: Self.broken)
        #expect(dash.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(dash.stdout.utf8)) as? [String: Any])
        #expect(object["checked"] as? Int == 1 && object["holds"] as? Bool == false)
        let finding = try #require((object["findings"] as? [[String: Any]])?.first)
        #expect(finding["source"] as? String == "stdin" && finding["line"] as? Int == 1 && finding["action"] as? String == "block")
    }

    @Test func theEventsQueuedInAStoreAreChecked() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let store = directory + "/queue.sqlite"
        let tracked = try await BeaconProcess.run(
            ["track", "--db", store, "--stdin"],
            stdin: [#"{"event":"Product Viewed","properties":{"product_id":"x"}}"#, #"{"event":"Product Viewed","properties":{"nope":1}}"#, #"{"event":"Zap"}"#]
                .joined(separator: "\n") + "\n")
        #expect(tracked.status == 0, "\(tracked.stderr)")
        let result = try await BeaconProcess.run(["plan", "check", Self.shop, "--db", store, "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["checked"] as? Int == 3 && object["violating"] as? Int == 2, "\(result.stdout)")
        let findings = object["findings"] as? [[String: Any]] ?? []
        #expect(findings.compactMap { $0["line"] as? Int } == [2, 3] && findings.allSatisfy { $0["source"] as? String == store })
        #expect(findings.allSatisfy { ($0["messageId"] as? String)?.isEmpty == false }, "a queued event's messageId names it")
        // Read-only: checking a store the engine may be serving changes nothing in it.
        let status = try await BeaconProcess.run(["status", "--db", store, "--json"])
        let depth = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["depth"] as? Int
        #expect(depth == 3)
    }

    @Test func badInputIsRefusedWithExit2() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let events = try Self.write(Self.clean + "\n", "events.ndjson", in: directory)
        for (arguments, expected) in [
            (["plan", "check", Self.shop, events, "--db", directory + "/q.sqlite"], "not both"),
            (["plan", "check", Self.shop, "--db", directory + "/none.sqlite"], "does not exist"),
            (["plan", "check", Self.shop, directory + "/missing.ndjson"], "cannot open"),
            (["plan", "check", Self.shop, events, "--junit", ""], "--junit must not be empty"),
            (["plan", "check", directory + "/missing.json", events], "cannot read"),
        ] {
            let result = try await BeaconProcess.run(arguments)
            #expect(result.status == 2 && result.stderr.contains(expected), "\(arguments): \(result.status) \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/none.sqlite"), "checking a store that does not exist made one")
    }
}

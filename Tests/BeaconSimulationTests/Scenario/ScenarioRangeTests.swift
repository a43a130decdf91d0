import Testing

@testable import BeaconSimulation

/// One field value placed in an otherwise minimal scenario, and whether it must be accepted.
struct ScenarioRangeCase: Sendable, CustomTestStringConvertible {
    var spot: ScenarioFixtures.Spot
    var key: String
    var value: String
    var accepted: Bool

    var testDescription: String { "\(spot.path(key)) = \(value) \(accepted ? "accepted" : "rejected")" }

    static func edges(_ spot: ScenarioFixtures.Spot, _ key: String, ok: [String], bad: [String]) -> [ScenarioRangeCase] {
        ok.map { ScenarioRangeCase(spot: spot, key: key, value: $0, accepted: true) }
            + bad.map { ScenarioRangeCase(spot: spot, key: key, value: $0, accepted: false) }
    }

    static let shareKeys = ["failRate", "throttleRate", "hangRate", "resetRate"]

    static func faultCases(_ spot: ScenarioFixtures.Spot) -> [ScenarioRangeCase] {
        shareKeys.flatMap { edges(spot, $0, ok: ["0", "1", "0.5"], bad: ["-0.001", "1.001", "\"0.5\"", "true"]) }
            + edges(spot, "retryAfterSeconds", ok: ["0", "86400"], bad: ["-1", "86401", "1.5", "1e2"])
            + edges(spot, "latencyMilliseconds", ok: ["0", "60000"], bad: ["-1", "60001", "0.5"])
            + edges(spot, "hangSeconds", ok: ["0", "300", "0.25"], bad: ["-0.1", "300.1"])
            + edges(spot, "maxBatchEvents", ok: ["1", "10000000"], bad: ["0", "10000001", "null"])
            + edges(spot, "down", ok: ["true", "false"], bad: ["1", "\"true\"", "null"])
    }

    static let all: [ScenarioRangeCase] =
        edges(.top, "seed", ok: ["0", "-0", "18446744073709551615", "9223372036854775807"],
              bad: ["-1", "18446744073709551616", "1.5", "1e3", "\"7\""])
        + edges(.top, "timeScale", ok: ["1", "1000", "1.5", "1e3"], bad: ["0.999", "1000.001", "0", "-1"])
        + edges(.top, "drainTimeoutSeconds", ok: ["1", "86400", "1.5"], bad: ["0.999", "86400.5", "-1"])
        + edges(.top, "description", ok: ["\"\"", "\"\(String(repeating: "d", count: 2000))\""],
                bad: ["\"\(String(repeating: "d", count: 2001))\"", "3", "null"])
        + edges(.engine, "batchSize", ok: ["1", "10000"], bad: ["0", "10001", "-1", "100.5"])
        + edges(.engine, "maxConcurrentRequests", ok: ["1", "16"], bad: ["0", "17"])
        + edges(.engine, "maxEvents", ok: ["1", "100000000"], bad: ["0", "100000001"])
        + edges(.engine, "maxBytes", ok: ["65536", "1099511627776"], bad: ["65535", "1099511627777", "9223372036854775807"])
        + edges(.engine, "policy", ok: ["\"x\"", "\"\(String(repeating: "p", count: 200))\""],
                bad: ["\"\"", "\"\(String(repeating: "p", count: 201))\"", "100"])
        + edges(.engine, "durability", ok: ["\"process-crash\"", "\"power-loss\""],
                bad: ["\"Power-Loss\"", "\"none\"", "1"])
        + faultCases(.collectorFaults)
        + faultCases(.stepFaults)
        + edges(.step, "seconds", ok: ["0.001", "86400", "1"], bad: ["0", "-0", "-1", "86400.001", "\"5\""])
        + edges(.step, "rate", ok: ["0", "100000", "0.5"], bad: ["-0.5", "100000.5", "1e300", "\"fast\""])
        + edges(.step, "burst", ok: ["0", "1000000"], bad: ["-1", "1000001", "1.5", "\"1.5\"", "9223372036854775807"])
        + edges(.step, "poison", ok: ["0", "1000"], bad: ["-1", "1001"])
        + ["offline", "kill", "retryNow"].flatMap { edges(.step, $0, ok: ["true", "false"], bad: ["1", "\"yes\"", "null"]) }
        + edges(.step, "name", ok: ["\"x\"", "\"\(String(repeating: "n", count: 60))\"", "\"caf\\u00e9 ☕\""],
                bad: ["\"\"", "\"\(String(repeating: "n", count: 61))\"", "\"a\\tb\"", "\"a\\u0000\"", "7"])
        + edges(.step, "paused", ok: ["[]", "[\"main\"]", "[\"main\",\"backup\"]"],
                bad: ["\"main\"", "[1]", "[\"main\",\"main\"]", "[\"nope\"]"])
        + edges(.step, "faults", ok: ["{}", "{\"backup\":{}}"], bad: ["[]", "{\"nope\":{}}", "{\"main\":1}"])
        + edges(.expect, "maxDepth", ok: ["0", "10000000"], bad: ["-1", "10000001", "0.5"])
        + edges(.expect, "drainedWithinSeconds", ok: ["0.001", "86400"], bad: ["0", "86400.1", "-1"])
        + ["deadLetters", "duplicatesStored", "duplicatesSent", "dropped", "delivered", "refused"].flatMap {
            edges(.expect, $0, ok: ["0", "10000000"], bad: ["-1", "10000001", "2.5", "\"1\""])
        }
}

@Suite struct ScenarioRangeTests {
    @Test(arguments: ScenarioRangeCase.all)
    func fieldEdges(_ testCase: ScenarioRangeCase) {
        let document = testCase.spot.document(testCase.key, testCase.value)
        let error = ScenarioFixtures.error(document)
        if testCase.accepted {
            #expect(error == nil, "\(document)")
        } else {
            #expect(error != nil, "\(document)")
            #expect(error?.field.hasPrefix(testCase.spot.path(testCase.key)) == true, "\(String(describing: error))")
            #expect(error?.line == 1)
        }
    }

    @Test func acceptedEdgesAreStored() throws {
        let scenario = try ScenarioFixtures.parse(
            """
            {"name":"t","seed":18446744073709551615,"timeScale":1000,"drainTimeoutSeconds":86400,
             "engine":{"batchSize":10000,"maxConcurrentRequests":16,"maxEvents":100000000,"maxBytes":1099511627776},
             "collectors":[{"name":"main","faults":{"maxBatchEvents":10000000,"hangSeconds":300,"retryAfterSeconds":86400}}],
             "steps":[{"seconds":86400,"rate":0,"burst":1000000,"poison":1000},{"seconds":0.001,"rate":100000}],
             "expect":{"maxDepth":10000000,"drainedWithinSeconds":86400}}
            """)
        #expect(scenario.seed == 18_446_744_073_709_551_615)
        #expect(scenario.timeScale == 1000 && scenario.drainTimeoutSeconds == 86_400)
        #expect(scenario.engine.batchSize == 10_000 && scenario.engine.maxConcurrentRequests == 16)
        #expect(scenario.engine.maxEvents == 100_000_000 && scenario.engine.maxBytes == 1 << 40)
        #expect(scenario.collectors[0].faults.maxBatchEvents == 10_000_000)
        #expect(scenario.collectors[0].faults.hangSeconds == 300)
        #expect(scenario.steps[0].burst == 1_000_000 && scenario.steps[0].poison == 1000)
        #expect(scenario.steps[1].seconds == 0.001 && scenario.steps[1].rate == 100_000)
        #expect(scenario.trackedEvents == 1_001_100)
        #expect(scenario.expect.maxDepth == 10_000_000)
    }

    @Test func negativeZeroIsReadAsZero() throws {
        let scenario = try ScenarioFixtures.parse(
            #"{"name":"t","seed":-0,"collectors":[{"name":"a"}],"steps":[{"seconds":1,"rate":-0.0}]}"#)
        #expect(scenario.seed == 0)
        #expect(scenario.steps[0].rate.sign == .plus)
    }

    @Test func outOfRangeMessageNamesTheValueAndTheRange() {
        let error = ScenarioFixtures.error(ScenarioFixtures.Spot.step.document("rate", "100001"))
        #expect(error?.field == "steps[0].rate")
        #expect(error?.message == "found 100001; expected a number of events per second, 0 to 100000")
        let seconds = ScenarioFixtures.error(ScenarioFixtures.Spot.step.document("seconds", "0"))
        #expect(seconds?.message == "found 0; expected a number of seconds, more than 0, at most 86400")
        let seed = ScenarioFixtures.error(ScenarioFixtures.Spot.top.document("seed", "18446744073709551616"))
        #expect(seed?.message == "found 18446744073709551616; expected a whole number, 0 to 18446744073709551615")
    }

    @Test(arguments: [(1, true), (8, true), (0, false), (9, false)])
    func collectorCount(_ count: Int, _ accepted: Bool) {
        let collectors = (0..<count).map { #"{"name":"c\#($0)"}"# }.joined(separator: ",")
        let error = ScenarioFixtures.error(#"{"name":"t","collectors":[\#(collectors)],"steps":[{"seconds":1}]}"#)
        #expect((error == nil) == accepted)
        if !accepted {
            #expect(error?.field == "collectors")
            #expect(error?.message == "found \(count); expected an array of collectors, 1 to 8 of them")
        }
    }

    @Test(arguments: [(1, true), (200, true), (0, false), (201, false)])
    func stepCount(_ count: Int, _ accepted: Bool) {
        let steps = Array(repeating: #"{"seconds":1}"#, count: count).joined(separator: ",")
        let error = ScenarioFixtures.error(#"{"name":"t","collectors":[{"name":"a"}],"steps":[\#(steps)]}"#)
        #expect((error == nil) == accepted)
        if !accepted { #expect(error?.field == "steps") }
    }

    @Test(arguments: [
        ("\"x\"", true), ("\"\(String(repeating: "n", count: 200))\"", true), ("\"Zürich ☕ 🚆\"", true),
        ("\"\(String(repeating: "n", count: 201))\"", false), ("\"\"", false), ("\"bell\\u0007\"", false),
        ("\"line\\nbreak\"", false), ("\"nul\\u0000\"", false), ("42", false), ("null", false),
    ])
    func scenarioName(_ value: String, _ accepted: Bool) {
        let error = ScenarioFixtures.error(#"{"name":\#(value),"collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#)
        #expect((error == nil) == accepted, "\(String(describing: error))")
        if !accepted { #expect(error?.field == "name") }
    }

    @Test(arguments: [
        ("\"a\"", true), ("\"A-z_0-9\"", true), ("\"\(String(repeating: "c", count: 40))\"", true),
        ("\"\(String(repeating: "c", count: 41))\"", false), ("\"\"", false), ("\"a b\"", false),
        ("\"café\"", false), ("\"a.b\"", false), ("\"a\\u0000\"", false), ("1", false),
    ])
    func collectorName(_ value: String, _ accepted: Bool) {
        let error = ScenarioFixtures.error(#"{"name":"t","collectors":[{"name":\#(value)}],"steps":[{"seconds":1}]}"#)
        #expect((error == nil) == accepted, "\(String(describing: error))")
        if !accepted { #expect(error?.field == "collectors[0].name") }
    }

    @Test func sharesMayAddUpToOneButNotMore() {
        let exact = #"{"failRate":0.1,"throttleRate":0.2,"hangRate":0.3,"resetRate":0.4}"#
        let over = #"{"failRate":0.5,"throttleRate":0.3,"hangRate":0.2,"resetRate":0.01}"#
        #expect(ScenarioFixtures.error(#"{"name":"t","collectors":[{"name":"a","faults":\#(exact)}],"steps":[{"seconds":1}]}"#) == nil)
        let base = ScenarioFixtures.error(#"{"name":"t","collectors":[{"name":"a","faults":\#(over)}],"steps":[{"seconds":1}]}"#)
        #expect(base?.field == "collectors[0].faults")
        #expect(base?.message == "failRate + throttleRate + hangRate + resetRate is 1.01; the shares must add up to at most 1")
        #expect(base?.column == 48)
        let step = ScenarioFixtures.error(
            #"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1},{"seconds":1,"faults":{"a":{"failRate":0.7,"throttleRate":0.7}}}]}"#)
        #expect(step?.field == "steps[1].faults.a")
        #expect(step?.message.contains("is 1.4;") == true)
    }

    @Test func trackedEventsMayReachTenMillionButNotMore() {
        let exact = ScenarioFixtures.error(
            #"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":99,"rate":100000},{"seconds":1,"rate":99000,"burst":1000}]}"#)
        #expect(exact == nil)
        let over = ScenarioFixtures.error(
            #"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":99,"rate":100000},{"seconds":1,"rate":99000,"burst":1000,"poison":1}]}"#)
        #expect(over?.field == "steps[1]")
        #expect(over?.message.contains("10000001 events") == true)
        #expect(over?.column == 79)
    }

    @Test func timelineMayLastSevenDaysButNotMore() {
        let day = #"{"seconds":86400}"#
        let week = Array(repeating: day, count: 7).joined(separator: ",")
        #expect(ScenarioFixtures.error(#"{"name":"t","collectors":[{"name":"a"}],"steps":[\#(week)]}"#) == nil)
        let over = ScenarioFixtures.error(#"{"name":"t","collectors":[{"name":"a"}],"steps":[\#(week),{"seconds":0.5}]}"#)
        #expect(over?.field == "steps[7].seconds")
        #expect(over?.message.hasPrefix("the timeline lasts 604800.5 seconds") == true)
    }
}

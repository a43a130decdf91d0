import BeaconSimulation
import Testing

/// `expect.destinations`: keyed by collector name, each with the expectations one
/// destination can have, read with the same ranges as the scenario's own.
@Suite struct ScenarioDestinationExpectationTests {
    static func parse(_ destinations: String) throws(ScenarioError) -> Scenario {
        try Scenario.parse(
            Array(
                """
                {
                  "name": "d",
                  "collectors": [ { "name": "api" }, { "name": "warehouse" } ],
                  "steps": [ { "seconds": 1 } ],
                  "expect": { "destinations": \(destinations) }
                }
                """.utf8))
    }

    @Test func theyAreReadByCollectorName() throws {
        let scenario = try Self.parse(#"{ "warehouse": { "drainedWithinSeconds": 10, "deadLetters": 0, "maxDepth": 5000, "delivered": 7 } }"#)
        #expect(scenario.expect.destinations == ["warehouse": ScenarioDestinationExpectations(maxDepth: 5_000, drainedWithinSeconds: 10, deadLetters: 0, delivered: 7)])
    }

    @Test(arguments: [
        (#"{ "wharehouse": { "deadLetters": 0 } }"#, "expect.destinations.wharehouse", "did you mean 'warehouse'"),
        (#"{ "api": { "drainedWithinSeconds": 0 } }"#, "expect.destinations.api.drainedWithinSeconds", "more than 0"),
        (#"{ "api": { "drainedWithinSeconds": NaN } }"#, "", "NaN"),
        (#"{ "api": { "deadLetters": -1 } }"#, "expect.destinations.api.deadLetters", "0 to 10000000"),
        (#"{ "api": { "maxDepth": 1e300 } }"#, "expect.destinations.api.maxDepth", "whole number"),
        (#"{ "api": { "dropped": 0 } }"#, "expect.destinations.api.dropped", "unknown field"),
        (#"{ "api": 3 }"#, "expect.destinations.api", "an object"),
        (#"[]"#, "expect.destinations", "collector name"),
    ])
    func aBadOneIsAnErrorAtItsLine(text: String, field: String, words: String) {
        do {
            _ = try Self.parse(text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.line == 5, "\(error)")
            #expect(error.field == field, "\(error)")
            #expect("\(error)".contains(words), "\(error)")
        }
    }
}

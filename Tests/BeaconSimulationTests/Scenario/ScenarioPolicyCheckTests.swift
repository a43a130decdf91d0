import BeaconSimulation
import Testing

/// The engine's reading of `engine.policy`, handed to the parser, makes a policy it cannot
/// read an error at the policy's line, like any other field.
@Suite struct ScenarioPolicyCheckTests {
    static let text = """
        {
          "name": "p",
          "engine": {
            "policy": "count banana"
          },
          "collectors": [ { "name": "main" } ],
          "steps": [ { "seconds": 1 } ]
        }
        """

    @Test func aPolicyTheEngineCannotReadIsAnErrorAtItsLine() throws {
        let refuse: @Sendable (String) -> String? = { $0.contains("banana") ? "'banana' is not a count" : nil }
        let error = try #require(throws: ScenarioError.self) { try Scenario.parse(Array(Self.text.utf8), checkPolicy: refuse) }
        #expect(error.line == 4)
        #expect(error.field == "engine.policy")
        #expect(error.message.contains("'banana' is not a count"), "\(error.message)")
        #expect(error.message.contains("\"count banana\""))
    }

    @Test func withoutACheckOrWithOneThatReadsItThePolicyPasses() throws {
        #expect(try Scenario.parse(Array(Self.text.utf8)).engine.policy == "count banana")
        #expect(try Scenario.parse(Array(Self.text.utf8), checkPolicy: { _ in nil }).engine.policy == "count banana")
    }
}

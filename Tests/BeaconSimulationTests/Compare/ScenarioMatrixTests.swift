import BeaconSimulation
import Testing

/// A scenario's `matrix` and `--set`: read by the `engine` object's own reader (same
/// ranges, same errors at the value's line), every combination a variant, and a `--set`
/// that pins its key.
@Suite struct ScenarioMatrixTests {
    static func scenario(matrix: String) -> String {
        """
        {
          "name": "m",
          "engine": { "batchSize": 100 },
          "matrix": \(matrix),
          "collectors": [ { "name": "main" } ],
          "steps": [ { "seconds": 1 } ]
        }
        """
    }

    static func parse(_ matrix: String) throws(ScenarioError) -> Scenario {
        try Scenario.parse(Array(scenario(matrix: matrix).utf8), concurrencyRange: 1...16)
    }

    @Test func everyCombinationIsAVariantMadeOnTheBaseEngine() throws {
        let scenario = try Self.parse(#"{ "batchSize": [50, 500], "policy": ["every 1s", "every 5s"], "maxConcurrentRequests": [1, 4, 16] }"#)
        let variants = scenario.variants
        #expect(variants.count == 12)
        #expect(Set(variants.map(\.name)).count == 12, "each variant has a name of its own")
        #expect(variants.first?.name == "every 1s b50 c1")
        #expect(variants.last?.name == "every 5s b500 c16")
        #expect(variants.last?.engine.batchSize == 500 && variants.last?.engine.maxConcurrentRequests == 16)
        #expect(variants.allSatisfy { $0.engine.durability == scenario.engine.durability })
        #expect(scenario.engine.batchSize == 100, "the base is left as written")
        #expect(variants.first?.settings.map(\.assignment) == ["policy=every 1s", "batchSize=50", "maxConcurrentRequests=1"])
    }

    @Test func noMatrixIsOneVariantTheBaseEngine() throws {
        let scenario = try Scenario.parse(Array(#"{"name":"t","collectors":[{"name":"main"}],"steps":[{"seconds":1}]}"#.utf8))
        #expect(scenario.variants.count == 1 && scenario.variants.first?.name == "base")
        #expect(scenario.variants.first?.engine == scenario.engine)
    }

    @Test(arguments: [
        // (matrix, field named, words in the message)
        (#"{ "batchSize": [50, 0] }"#, "matrix.batchSize", "1 to 10000"),
        (#"{ "batchSize": [50, 1e300] }"#, "matrix.batchSize", "whole number"),
        (#"{ "maxConcurrentRequests": [1, 17] }"#, "matrix.maxConcurrentRequests", "1 to 16"),
        (#"{ "batchSize": [50, 50] }"#, "matrix.batchSize[1]", "listed twice"),
        (#"{ "batchSize": [] }"#, "matrix.batchSize", "1 to 12"),
        (#"{ "batchSize": 50 }"#, "matrix.batchSize", "an array"),
        (#"{ "batchsize": [50] }"#, "matrix.batchsize", "did you mean 'batchSize'"),
        (#"{ "durability": ["process-crash", "fsync"] }"#, "matrix.durability", "fsync"),
        (#"{ "policy": ["", "every 1s"] }"#, "matrix.policy", "empty"),
        (#"[50, 500]"#, "matrix", "an object"),
        (#"{ "batchSize": [1,2,3,4,5,6,7], "maxConcurrentRequests": [1,2,3,4,5,6] }"#, "matrix", "42 combinations"),
    ])
    func aValueTheEngineWouldRefuseIsAnErrorAtItsLine(matrix: String, field: String, words: String) {
        #expect(throws: ScenarioError.self) { try Self.parse(matrix) }
        do {
            _ = try Self.parse(matrix)
        } catch {
            #expect(error.line == 4, "\(error)")
            #expect(error.field == field, "\(error)")
            #expect(error.message.contains(words), "\(error)")
        }
    }

    @Test func setTakesWhatTheEngineObjectTakesAndPinsItsKey() throws {
        let batch = try ScenarioEngineSetting.parse(assignment: "engine.batchSize=500")
        #expect(batch.key == "batchSize" && batch.label == "b500" && batch.assignment == "batchSize=500")
        var scenario = try Self.parse(#"{ "batchSize": [50, 200], "policy": ["every 1s", "every 5s"] }"#)
        batch.apply(to: &scenario.engine)
        scenario.matrix = scenario.matrix.pinning(batch.key)
        #expect(scenario.variants.map(\.name) == ["every 1s", "every 5s"])
        #expect(scenario.variants.allSatisfy { $0.engine.batchSize == 500 })
        // A string needs no quotes; quoted JSON works too.
        #expect(try ScenarioEngineSetting.parse(assignment: "engine.policy=every 2s").text == "every 2s")
        #expect(try ScenarioEngineSetting.parse(assignment: #"engine.policy="every 2s""#).text == "every 2s")
        #expect(try ScenarioEngineSetting.parse(assignment: "engine.durability=power-loss").label == "power-loss")
    }

    @Test(arguments: [
        ("engine.batchSize", "engine.KEY=VALUE"),
        ("batchSize=5", "not an engine setting"),
        ("engine.batchsize=5", "not an engine setting"),
        ("engine.batchSize=0", "1 to 10000"),
        ("engine.batchSize=five", "found the string \"five\""),
        ("engine.batchSize=-9223372036854775809", "whole number"),
        ("engine.maxConcurrentRequests=64", "1 to 16"),
        ("engine.maxBytes=1e300", "whole number"),
        ("engine.policy=", "empty"),
        ("engine.durability=true", "found a boolean"),
        ("engine.policy=\u{0}", "policy"),
    ])
    func aBadSetIsAnErrorNamingTheKey(assignment: String, words: String) {
        let refuseNUL: @Sendable (String) -> String? = { $0.contains("\u{0}") ? "a NUL" : nil }
        #expect(throws: ScenarioError.self) { try ScenarioEngineSetting.parse(assignment: assignment, checkPolicy: refuseNUL) }
        do {
            _ = try ScenarioEngineSetting.parse(assignment: assignment, checkPolicy: refuseNUL)
        } catch {
            #expect(error.line == 0)
            #expect("\(error)".contains(words), "\(assignment): \(error)")
        }
    }

    @Test func repeatsUseTheScenarioSeedFirstThenDerivedOnes() throws {
        var scenario = try Self.parse(#"{ "batchSize": [50] }"#)
        scenario.seed = 7
        let seeds = scenario.repeatSeeds(5)
        #expect(seeds.count == 5 && seeds.first == 7 && Set(seeds).count == 5)
        #expect(scenario.repeatSeeds(5) == seeds, "the same seeds every time")
        #expect(scenario.repeatSeeds(0) == [7] && scenario.repeatSeeds(-3) == [7])
        scenario.seed = .max
        #expect(Set(scenario.repeatSeeds(3)).count == 3, "no overflow trap at UInt64.max")
    }
}

import Testing

@testable import BeaconSimulation

@Suite struct ScenarioExampleTests {
    @Test func exampleParsesToItsValues() throws {
        let scenario = try ScenarioFixtures.parse(ScenarioFixtures.example)
        #expect(scenario.name == "Offline burst on a train")
        #expect(scenario.description == "Tracking continues through a tunnel; the backlog drains at the next station.")
        #expect(scenario.seed == 7)
        #expect(scenario.timeScale == 1)
        #expect(
            scenario.engine
                == ScenarioEngine(
                    policy: "count 100 or every 1s", batchSize: 100, maxConcurrentRequests: 1, maxEvents: 50_000,
                    maxBytes: 67_108_864, durability: .processCrash))
        #expect(
            scenario.collectors == [
                ScenarioCollector(name: "main"),
                ScenarioCollector(name: "warehouse", faults: ScenarioFaults(latencyMilliseconds: 20)),
            ])
        #expect(
            scenario.steps == [
                ScenarioStep(name: "commute", seconds: 5, rate: 200),
                ScenarioStep(name: "tunnel", seconds: 10, rate: 200, offline: true, burst: 2000),
                ScenarioStep(
                    name: "flaky station", seconds: 5, rate: 50,
                    faults: ["main": ScenarioFaults(failRate: 0.3, throttleRate: 0.1, retryAfterSeconds: 1)]),
                ScenarioStep(name: "crash", seconds: 3, rate: 50, kill: true),
                ScenarioStep(name: "bad event", seconds: 2, rate: 10, poison: 1),
                ScenarioStep(name: "maintenance", seconds: 2, rate: 10, paused: ["warehouse"]),
                ScenarioStep(name: "operator", seconds: 1, retryNow: true),
            ])
        #expect(scenario.drainTimeoutSeconds == 60)
        #expect(
            scenario.expect
                == ScenarioExpectations(
                    maxDepth: 6000, drainedWithinSeconds: 30, deadLetters: 2, duplicatesStored: 0, dropped: 0))
        #expect(scenario.expect.duplicatesSent == nil)
        #expect(scenario.expect.delivered == nil)
    }

    @Test func exampleTotals() throws {
        let scenario = try ScenarioFixtures.parse(ScenarioFixtures.example)
        // 1000 + (2000 + 2000) + 250 + 150 + (20 + 1) + 20 + 0
        #expect(scenario.trackedEvents == 5441)
        #expect(scenario.duration == 28)
        #expect(scenario.wallDuration == 28)
        #expect(scenario.steps[1].trackedEvents == 4000)
        #expect(scenario.steps[4].rateEvents == 20)
    }

    @Test func stepFaultsOverrideTheBasePlanForThatStepOnly() throws {
        let scenario = try ScenarioFixtures.parse(ScenarioFixtures.example)
        let main = scenario.collectors[0]
        let warehouse = scenario.collectors[1]
        #expect(scenario.steps[2].faults(for: main).failRate == 0.3)
        #expect(scenario.steps[2].faults(for: warehouse) == ScenarioFaults(latencyMilliseconds: 20))
        #expect(scenario.steps[3].faults(for: main) == .none)
        #expect(scenario.steps[5].isPaused("warehouse"))
        #expect(!scenario.steps[6].isPaused("warehouse"))
    }

    @Test func minimalScenarioTakesEveryDefault() throws {
        let scenario = try ScenarioFixtures.parse(ScenarioFixtures.minimal)
        #expect(scenario == Scenario(name: "t", collectors: [ScenarioCollector(name: "main")], steps: [ScenarioStep(name: "step 1", seconds: 1)]))
        #expect(scenario.description == nil)
        #expect(scenario.seed == 1)
        #expect(scenario.timeScale == 1)
        #expect(scenario.engine == ScenarioEngine())
        #expect(scenario.engine.policy == "count 100 or every 1s")
        #expect(scenario.engine.batchSize == 100)
        #expect(scenario.engine.maxConcurrentRequests == 1)
        #expect(scenario.engine.maxEvents == nil)
        #expect(scenario.engine.maxBytes == nil)
        #expect(scenario.engine.durability == .processCrash)
        #expect(scenario.drainTimeoutSeconds == 120)
        #expect(scenario.expect.isEmpty)
        let step = try #require(scenario.steps.first)
        #expect(step.rate == 0 && !step.offline && step.faults.isEmpty && step.paused.isEmpty)
        #expect(step.burst == 0 && step.poison == 0 && !step.kill && !step.retryNow)
        #expect(scenario.collectors[0].faults == ScenarioFaults.none)
        let plan = ScenarioFaults()
        #expect(plan.retryAfterSeconds == 1 && plan.latencyMilliseconds == 0 && plan.hangSeconds == 30)
        #expect(plan.maxBatchEvents == nil && !plan.down && plan.totalRate == 0)
    }

    @Test func unnamedStepsAreNumberedFromOne() throws {
        let scenario = try ScenarioFixtures.parse(
            #"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1},{"name":"x","seconds":1},{"seconds":2}]}"#)
        #expect(scenario.steps.map(\.name) == ["step 1", "x", "step 3"])
    }

    @Test func timeScaleAndDurabilityAndAllFaultKeysAreRead() throws {
        let scenario = try ScenarioFixtures.parse(
            """
            {"name":"t","timeScale":10,"seed":18446744073709551615,"engine":{"durability":"power-loss"},
             "collectors":[{"name":"a","faults":{"failRate":0.1,"throttleRate":0.2,"hangRate":0.3,"resetRate":0.4,
               "retryAfterSeconds":5,"latencyMilliseconds":7,"hangSeconds":2.5,"maxBatchEvents":50,"down":true}}],
             "steps":[{"seconds":30,"rate":2}],
             "expect":{"duplicatesSent":3,"delivered":60}}
            """)
        #expect(scenario.timeScale == 10)
        #expect(scenario.seed == UInt64.max)
        #expect(scenario.engine.durability == .powerLoss)
        #expect(
            scenario.collectors[0].faults
                == ScenarioFaults(
                    failRate: 0.1, throttleRate: 0.2, hangRate: 0.3, resetRate: 0.4, retryAfterSeconds: 5,
                    latencyMilliseconds: 7, hangSeconds: 2.5, maxBatchEvents: 50, down: true))
        #expect(scenario.wallDuration == 3)
        #expect(scenario.trackedEvents == 60)
        #expect(scenario.expect.duplicatesSent == 3 && scenario.expect.delivered == 60)
    }

    @Test func rateEventsRoundDownButForgiveBinaryFractions() {
        #expect(ScenarioStep(name: "s", seconds: 100, rate: 2.3).rateEvents == 230)
        #expect(ScenarioStep(name: "s", seconds: 10, rate: 0.15).rateEvents == 1)
        #expect(ScenarioStep(name: "s", seconds: 3, rate: 0.5).rateEvents == 1)
        #expect(ScenarioStep(name: "s", seconds: 1, rate: 0).rateEvents == 0)
        #expect(ScenarioStep(name: "s", seconds: 1, rate: .nan).rateEvents == 0)
        #expect(ScenarioStep(name: "s", seconds: 1, rate: -5).rateEvents == 0)
        #expect(ScenarioStep(name: "s", seconds: 1, rate: .infinity).rateEvents == Int.max)
        #expect(ScenarioStep(name: "s", seconds: 1e300, rate: 1e300).rateEvents == Int.max)
        #expect(ScenarioStep(name: "s", seconds: 1e10, rate: 1e10).rateEvents == Int.max)
        #expect(ScenarioStep(name: "s", seconds: 1e10, rate: 1e10, burst: 5).trackedEvents == Int.max)
    }
}

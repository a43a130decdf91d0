import Testing

@testable import BeaconSimulation

@Suite struct ScenarioFieldErrorTests {
    @Test func wrongTypeSaysWhatWasFoundAndWhatIsExpected() {
        let error = ScenarioFixtures.error(ScenarioFixtures.Spot.step.document("rate", "\"fast\""))
        #expect(error?.field == "steps[0].rate")
        #expect(error?.message == "found the string \"fast\"; expected a number of events per second, 0 to 100000")
    }

    @Test(arguments: [
        (#"{"name":"t","collectors":{"name":"a"},"steps":[{"seconds":1}]}"#, "collectors", "found an object; expected an array of collectors"),
        (#"{"name":"t","collectors":[{"name":"a"}],"steps":{"seconds":1}}"#, "steps", "found an object; expected an array of steps"),
        (#"{"name":"t","collectors":["a"],"steps":[{"seconds":1}]}"#, "collectors[0]", "found the string \"a\"; expected a collector object"),
        (#"{"name":"t","collectors":[{"name":"a"}],"steps":[1]}"#, "steps[0]", "found 1; expected a step object"),
        (#"{"name":"t","engine":[],"collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#, "engine", "found an array; expected an object of engine settings"),
        (#"{"name":"t","expect":true,"collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#, "expect", "found a boolean; expected an object of expectations"),
        (#"{"name":"t","collectors":[{"name":"a","faults":"flaky"}],"steps":[{"seconds":1}]}"#, "collectors[0].faults", "found the string \"flaky\"; expected a fault plan object"),
        (#"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1,"faults":["a"]}]}"#, "steps[0].faults", "found an array; expected an object mapping collector names to fault plans"),
        (#"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1,"paused":"a"}]}"#, "steps[0].paused", "found the string \"a\"; expected an array of collector names"),
        (#"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1,"paused":[null]}]}"#, "steps[0].paused[0]", "found null; expected a collector name"),
        (#"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1,"kill":"yes"}]}"#, "steps[0].kill", "found the string \"yes\"; expected true or false"),
        (#"{"name":"t","engine":{"durability":"fsync"},"collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#, "engine.durability", "found \"fsync\"; expected \"process-crash\" or \"power-loss\""),
        (#"{"name":null,"collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#, "name", "found null; expected a name of 1 to 200 characters, no control characters"),
    ])
    func wrongTypes(_ document: String, _ field: String, _ messagePrefix: String) {
        let error = ScenarioFixtures.error(document)
        #expect(error?.field == field)
        #expect(error?.message.hasPrefix(messagePrefix) == true, "\(String(describing: error?.message))")
    }

    @Test func topLevelMustBeAnObject() {
        for document in ["[]", "42", "\"scenario\"", "null"] {
            let error = ScenarioFixtures.error(document)
            #expect(error?.field == "")
            #expect(error?.line == 1 && error?.column == 1)
            #expect(error?.message.contains("expected a scenario object") == true)
        }
    }

    @Test func unknownFieldSuggestsTheClosestKnownOne() {
        let document = #"{"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":1},{"seconds":1},{"seconds":1,"rat":5}]}"#
        let error = ScenarioFixtures.error(document)
        #expect(error?.field == "steps[2].rat")
        #expect(error?.message == "unknown field 'rat' in steps[2]; did you mean 'rate'?")
        #expect(error?.column == 91)
    }

    @Test(arguments: [
        (ScenarioFixtures.Spot.top, "nmae", "unknown field 'nmae' in the scenario; did you mean 'name'?"),
        (.top, "Seed", "unknown field 'Seed' in the scenario; did you mean 'seed'?"),
        (.top, "timescale", "unknown field 'timescale' in the scenario; did you mean 'timeScale'?"),
        (.engine, "batchsize", "unknown field 'batchsize' in engine; did you mean 'batchSize'?"),
        (.engine, "maxBytess", "unknown field 'maxBytess' in engine; did you mean 'maxBytes'?"),
        (.collectorFaults, "failrate", "unknown field 'failrate' in collectors[0].faults; did you mean 'failRate'?"),
        (.stepFaults, "hangSecond", "unknown field 'hangSecond' in steps[0].faults.main; did you mean 'hangSeconds'?"),
        (.step, "retrynow", "unknown field 'retrynow' in steps[0]; did you mean 'retryNow'?"),
        (.step, "pause", "unknown field 'pause' in steps[0]; did you mean 'paused'?"),
        (.expect, "deadLetter", "unknown field 'deadLetter' in expect; did you mean 'deadLetters'?"),
    ])
    func unknownFields(_ spot: ScenarioFixtures.Spot, _ key: String, _ message: String) {
        let error = ScenarioFixtures.error(spot.document(key, "1"))
        #expect(error?.field == spot.path(key))
        #expect(error?.message == message)
    }

    @Test func unknownFieldFarFromAnyKnownOneListsThem() {
        let error = ScenarioFixtures.error(ScenarioFixtures.Spot.expect.document("speed", "1"))
        #expect(
            error?.message
                == "unknown field 'speed' in expect; known fields: maxDepth, drainedWithinSeconds, deadLetters, duplicatesStored, duplicatesSent, dropped, delivered, refused, latencyP99Seconds, destinations"
        )
    }

    @Test(arguments: [
        (#"{"collectors":[{"name":"a"}],"steps":[{"seconds":1}]}"#, "name", 1, 1, "missing required field 'name' in the scenario"),
        (#"{"name":"t","steps":[{"seconds":1}]}"#, "collectors", 1, 1, "missing required field 'collectors' in the scenario"),
        (#"{"name":"t","collectors":[{"name":"a"}]}"#, "steps", 1, 1, "missing required field 'steps' in the scenario"),
        ("{\"name\":\"t\",\n\"collectors\":[{\"name\":\"a\"}],\n\"steps\":[{\"seconds\":1},\n  {\"rate\":3}]}", "steps[1].seconds", 4, 3, "missing required field 'seconds' in steps[1]"),
        ("{\"name\":\"t\",\n\"collectors\":[\n {\"faults\":{}}],\"steps\":[{\"seconds\":1}]}", "collectors[0].name", 3, 2, "missing required field 'name' in collectors[0]"),
    ])
    func missingRequiredFieldIsReportedAtItsObject(
        _ document: String, _ field: String, _ line: Int, _ column: Int, _ message: String
    ) {
        let error = ScenarioFixtures.error(document)
        #expect(error == ScenarioError(line: line, column: column, field: field, message: message))
    }

    @Test func duplicateCollectorNamesAreReportedAtTheRepeat() {
        let document = "{\"name\":\"t\",\"collectors\":[\n{\"name\":\"main\"},\n{\"name\":\"other\"},\n{\"name\": \"main\"}],\"steps\":[{\"seconds\":1}]}"
        let error = ScenarioFixtures.error(document)
        #expect(error == ScenarioError(line: 4, column: 10, field: "collectors[2].name", message: "collector name 'main' is already used by collectors[0]"))
    }

    @Test func unknownCollectorInStepFaults() {
        let error = ScenarioFixtures.error(
            #"{"name":"t","collectors":[{"name":"main"},{"name":"warehouse"}],"steps":[{"seconds":1,"faults":{"mian":{"down":true}}}]}"#)
        #expect(error?.field == "steps[0].faults.mian")
        #expect(error?.message == "no collector named 'mian'; did you mean 'main'?")
        let far = ScenarioFixtures.error(
            #"{"name":"t","collectors":[{"name":"main"},{"name":"warehouse"}],"steps":[{"seconds":1,"faults":{"backup":{}}}]}"#)
        #expect(far?.message == "no collector named 'backup'; the collectors are main, warehouse")
    }

    @Test func unknownOrRepeatedCollectorInPaused() {
        let unknown = ScenarioFixtures.error(
            #"{"name":"t","collectors":[{"name":"main"},{"name":"warehouse"}],"steps":[{"seconds":1,"paused":["main","warehous"]}]}"#)
        #expect(unknown?.field == "steps[0].paused[1]")
        #expect(unknown?.message == "no collector named 'warehous'; did you mean 'warehouse'?")
        let repeated = ScenarioFixtures.error(
            #"{"name":"t","collectors":[{"name":"main"}],"steps":[{"seconds":1,"paused":["main","main"]}]}"#)
        #expect(repeated?.field == "steps[0].paused[1]")
        #expect(repeated?.message == "'main' is listed twice")
    }

    @Test func theErrorEarliestInTheDocumentWins() {
        // `expect` is decoded last but written first; `steps` is decoded before `drainTimeoutSeconds`.
        let document = """
            {"expect": {"dropped": -1},
             "name": "",
             "collectors": [{"name": "a"}],
             "steps": [{"seconds": 0}]}
            """
        #expect(ScenarioFixtures.error(document)?.field == "expect.dropped")
        let sameLine = #"{"drainTimeoutSeconds":0,"name":"t","collectors":[{"name":"a"}],"steps":[{"seconds":0}]}"#
        #expect(ScenarioFixtures.error(sameLine)?.field == "drainTimeoutSeconds")
        let inObject = #"{"name":"t","collectors":[{"name":"a"}],"steps":[{"rate":-1,"kill":1,"seconds":0}]}"#
        #expect(ScenarioFixtures.error(inObject)?.field == "steps[0].rate")
        let missing = #"{"name":"t","collectors":[{"name":"a"}],"steps":[{"rate":-1}]}"#
        #expect(ScenarioFixtures.error(missing)?.field == "steps[0].seconds")
    }
}

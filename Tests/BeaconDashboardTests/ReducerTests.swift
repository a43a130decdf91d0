import Beacon
import BeaconDashboard
import Testing

/// Feeds keys one by one and keeps the actions.
struct KeyScript {
    var state: DashboardState
    var actions: [DashboardAction] = []

    init(_ state: DashboardState) { self.state = state }

    @discardableResult
    mutating func press(_ keys: Key...) -> [DashboardAction] {
        var produced: [DashboardAction] = []
        for key in keys {
            let (next, actions) = DashboardReducer.reduce(state, key)
            state = next
            produced += actions
        }
        actions += produced
        return produced
    }

    @discardableResult
    mutating func type(_ text: String) -> [DashboardAction] {
        var produced: [DashboardAction] = []
        for character in text { produced += press(.character(character)) }
        return produced
    }
}

@Suite struct ReducerCommandTests {
    var script = KeyScript(DashboardState(mode: .demo))

    @Test mutating func flush() {
        #expect(script.press(.character("f")) == [.flush])
        #expect(script.state.message?.text == "flush requested")
    }

    @Test mutating func offlineTogglesFromObservedState() {
        #expect(script.press(.character("o")) == [.setOffline(true)])
        #expect(script.press(.character("o")) == [.setOffline(false)])
        var snapshot = Fixtures.steady()
        snapshot.isOffline = true
        script.state.observe(snapshot)
        #expect(script.press(.character("o")) == [.setOffline(false)])
    }

    @Test mutating func burstUsesBurstSize() {
        #expect(script.state.burstSize == 500)
        #expect(script.press(.character("b")) == [.burst(500)])
        script.press(.character("]"))
        #expect(script.state.burstSize == 1000)
        script.press(.character("["), .character("["))
        #expect(script.state.burstSize == 250)
        #expect(script.press(.character("b")) == [.burst(250)])
    }

    @Test mutating func burstSizeStaysInRange() {
        script.state.burstSize = 1
        script.press(.character("["))
        #expect(script.state.burstSize == 1)
        script.state.burstSize = 80_000
        script.press(.character("]"))
        #expect(script.state.burstSize == 100_000)
    }

    @Test mutating func batchSizeDoublesAndHalvesWithinLimits() {
        var snapshot = Fixtures.steady()
        snapshot.batchSize = 100
        script.state.observe(snapshot)
        #expect(script.press(.character("+")) == [.setBatchSize(200)])
        #expect(script.press(.character("-"), .character("-")) == [.setBatchSize(100), .setBatchSize(50)])
        script.state.batchSize = 6_000
        #expect(script.press(.character("+")) == [.setBatchSize(10_000)])
        #expect(script.press(.character("+")) == [])
        #expect(script.state.message?.severity == .warning)
        script.state.batchSize = 1
        #expect(script.press(.character("-")) == [])
        script.state.batchSize = 3
        #expect(script.press(.character("-")) == [.setBatchSize(1)])
    }

    @Test mutating func generatorRateCycles() {
        #expect(script.type("rrrr") == [
            .setGeneratorRate(10), .setGeneratorRate(100), .setGeneratorRate(1000), .setGeneratorRate(0),
        ])
        #expect(script.state.generatorRate == 0)
        #expect(script.state.message?.text == "generator off")
    }

    @Test mutating func faultPresetsCycle() {
        #expect(script.type("cccc") == [
            .setFaultPreset(.flaky), .setFaultPreset(.down), .setFaultPreset(.slow), .setFaultPreset(.none),
        ])
        #expect(script.state.faultPreset == .none)
    }

    @Test mutating func configSyncOnlyWithRemoteConfig() {
        #expect(script.press(.character("s")) == [])
        #expect(script.state.message?.severity == .warning)
        #expect(script.state.message?.text.contains("--config") == true)
        script.state.observe(Fixtures.remoteConfig())
        #expect(script.press(.character("s")) == [.syncConfig])
        #expect(script.state.message?.severity == .info)
        script.state.observe(Fixtures.steady())
        #expect(script.press(.character("s")) == [], "the syncer's reports stopped")
    }

    @Test mutating func helpListsConfigSyncOnlyWithRemoteConfig() {
        script.press(.character("?"))
        func help(_ snapshot: EngineSnapshot) -> String {
            DashboardRenderer.render(snapshot: snapshot, state: script.state, size: (width: 80, height: 24)).text
        }
        #expect(!help(Fixtures.steady()).contains("poll the remote config feed now"))
        script.state.observe(Fixtures.remoteConfig())
        #expect(help(Fixtures.remoteConfig()).contains("poll the remote config feed now"))
    }

    @Test mutating func helpToggles() {
        #expect(script.press(.character("?")) == [])
        #expect(script.state.isHelpVisible && script.state.helpPage == .keys)
        script.press(.character("?"))
        #expect(script.state.isHelpVisible && script.state.helpPage == .figures, "the second page: the legend")
        script.press(.character("?"))
        #expect(!script.state.isHelpVisible)
        script.press(.character("?"))
        #expect(script.state.helpPage == .keys, "opened again, the keys come first")
        script.press(.character("?"), .escape)
        #expect(!script.state.isHelpVisible)
    }

    @Test mutating func quit() {
        #expect(script.press(.character("q")) == [.quit])
        #expect(script.state.isQuitting)
    }

    @Test mutating func unknownKeySaysHowToGetHelp() {
        #expect(script.press(.character("x")) == [])
        #expect(script.state.message?.text.contains("press ? for help") == true)
    }

    @Test mutating func nonCharacterKeysDoNothing() {
        let before = script.state
        #expect(script.press(.resize, .up, .down, .left, .right, .tab, .enter, .backspace) == [])
        #expect(script.state == before)
    }

    @Test mutating func escapeClearsMessage() {
        script.press(.character("f"))
        script.press(.escape)
        #expect(script.state.message == nil)
    }
}

@Suite struct ReducerPromptTests {
    var script = KeyScript(DashboardState(mode: .demo))

    @Test(arguments: [
        ("1", FlushPolicy.manual), ("2", .count(100)), ("3", .interval(.seconds(5))),
        ("4", .any([.count(100), .interval(.seconds(5))])),
    ])
    func presets(number: String, policy: FlushPolicy) {
        var script = KeyScript(DashboardState(mode: .demo))
        script.press(.character("p"))
        script.type(number)
        #expect(script.press(.enter) == [.setPolicy(policy)])
        #expect(script.state.prompt == nil)
    }

    @Test mutating func typedPolicyIsParsed() {
        script.press(.character("p"))
        #expect(script.state.prompt?.kind == .policy)
        #expect(script.type("count 20 or 30s") == [])
        #expect(script.press(.enter) == [.setPolicy(.any([.count(20), .interval(.seconds(30))]))])
        #expect(script.state.message?.text == "policy: count 20 or every 30s")
    }

    @Test mutating func parseErrorKeepsPromptOpenWithMessage() {
        script.press(.character("p"))
        script.type("sometimes")
        #expect(script.press(.enter) == [])
        #expect(throws: FlushPolicyParseError.self) { try FlushPolicy(parsing: "sometimes") }
        // The reason alone, so that it fits 80 columns: "not a policy: 'sometimes' is neither …".
        #expect(script.state.prompt?.error == "not a policy: 'sometimes' is neither a count nor an interval")
        #expect(script.state.prompt?.buffer == "sometimes")
        script.press(.backspace)
        #expect(script.state.prompt?.error == nil)
        #expect(script.state.prompt?.buffer == "sometime")
    }

    @Test mutating func emptyPolicyIsRefused() {
        script.press(.character("p"), .enter)
        #expect(script.state.prompt?.error?.contains("it is empty") == true)
    }

    @Test mutating func backspaceEditsAndEscapeCancels() {
        script.press(.character("p"))
        script.type("count 5x")
        script.press(.backspace, .backspace)
        #expect(script.state.prompt?.buffer == "count ")
        script.press(.backspace, .backspace, .backspace, .backspace, .backspace, .backspace, .backspace)
        #expect(script.state.prompt?.buffer == "")
        #expect(script.press(.escape) == [])
        #expect(script.state.prompt == nil)
        #expect(script.state.message?.text == "policy unchanged")
    }

    @Test mutating func commandKeysAreTextInsideAPrompt() {
        script.press(.character("p"))
        #expect(script.type("qfob?") == [])
        #expect(script.state.prompt?.buffer == "qfob?")
        #expect(!script.state.isHelpVisible)
        #expect(!script.state.isQuitting)
    }

    @Test mutating func promptIgnoresNavigationKeys() {
        script.press(.character("p"))
        script.type("5s")
        script.press(.up, .left, .tab, .resize)
        #expect(script.state.prompt?.buffer == "5s")
    }

    @Test mutating func promptLengthIsBounded() {
        script.press(.character("p"))
        script.type(String(repeating: "9", count: 500))
        #expect(script.state.prompt?.buffer.count == DashboardLimits.maxPromptLength)
    }

    @Test mutating func burstSizePrompt() {
        script.press(.character("B"))
        #expect(script.state.prompt?.kind == .burstSize)
        script.type("2,000")
        #expect(script.press(.enter) == [])
        #expect(script.state.prompt == nil)
        #expect(script.state.burstSize == 2_000)
        #expect(script.press(.character("b")) == [.burst(2_000)])
    }

    @Test(arguments: ["", "abc", "0", "100001", "-5"])
    func burstSizePromptRefusesBadNumbers(text: String) {
        var script = KeyScript(DashboardState(mode: .demo))
        script.press(.character("B"))
        script.type(text)
        script.press(.enter)
        #expect(script.state.prompt?.error?.contains("is not a number of events") == true)
        #expect(script.state.burstSize == 500)
        script.press(.escape)
        #expect(script.state.prompt == nil)
        #expect(script.state.message?.text == "burst size unchanged")
    }
}

@Suite struct ReducerMonitorTests {
    @Test(arguments: Array("fpobB[]+-rcs"))
    func engineKeysAreRefused(key: Character) {
        var script = KeyScript(DashboardState(mode: .monitor))
        let before = script.state
        #expect(script.press(.character(key)) == [])
        #expect(script.state.prompt == nil)
        #expect(script.state.burstSize == before.burstSize)
        #expect(script.state.batchSize == before.batchSize)
        #expect(script.state.message?.severity == .warning)
        #expect(script.state.message?.text.contains("read-only monitor") == true)
    }

    @Test func helpAndQuitStillWork() {
        var script = KeyScript(DashboardState(mode: .monitor))
        script.press(.character("?"))
        #expect(script.state.isHelpVisible)
        script.press(.escape)
        #expect(!script.state.isHelpVisible)
        #expect(script.press(.character("q")) == [.quit])
    }
}

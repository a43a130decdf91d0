import Beacon
import BeaconDashboard
import BeaconWire
import Testing

/// The monitor attached to another process's engine: engine keys act, demo keys do not,
/// and the screen says which it is.
@Suite struct AttachedModeTests {
    /// Each key that changes the live engine asks first; `y` does it.
    @Test func engineKeysProduceEngineActionsOnceConfirmed() {
        var script = KeyScript(DashboardState(mode: .attached))
        #expect(script.press(.character("f")) == [])
        #expect(script.state.message?.text == "flush on the live engine? y confirms, any other key cancels")
        #expect(script.press(.character("y")) == [.flush])
        #expect(script.press(.character("o"), .character("y")) == [.setOffline(true)])
        #expect(script.state.isOffline)
        #expect(script.press(.character("+"), .character("y")) == [.setBatchSize(200)])
        #expect(script.press(.character("-"), .character("Y")) == [.setBatchSize(100)])
        script.press(.character("p"))
        #expect(script.type("count 7") == [])
        #expect(script.press(.enter) == [])
        #expect(script.state.confirmation == .engineKey(.enter, label: "set the policy to 'count 7'"))
        #expect(script.press(.character("y")) == [.setPolicy(.count(7))])
        #expect(script.state.prompt == nil && script.state.confirmation == nil)
    }

    /// Any other key cancels, and leaves the state as before the key.
    @Test func anyOtherKeyCancelsAndChangesNothing() {
        var script = KeyScript(DashboardState(mode: .attached))
        #expect(script.press(.character("o")) == [])
        #expect(!script.state.isOffline, "nothing changes until confirmed")
        #expect(script.press(.character("f")) == [], "f answers the question: it does not flush")
        #expect(script.state.message?.text == "not done: take the engine offline")
        #expect(!script.state.isOffline && script.state.confirmation == nil)
        #expect(script.press(.character("q")) == [.quit], "quitting never asks")
    }

    /// `monitor --read-only`: every key that would change the engine is refused, attached or not.
    @Test(arguments: ["f", "o", "+", "-", "p", "P", "R"] as [Character])
    func readOnlyByChoiceRefusesEveryEngineKey(key: Character) {
        var state = DashboardState(mode: .attached)
        state.isReadOnlyByChoice = true
        state.observe(Fixtures.twoDestinations())
        var script = KeyScript(state)
        #expect(script.press(.character(key)) == [])
        #expect(script.state.message?.text.contains("read-only (--read-only)") == true, "\(String(describing: script.state.message))")
        #expect(script.state.confirmation == nil && script.state.prompt == nil)
        #expect(script.press(.character("y")) == [])
    }

    @Test func withoutAnEngineAnsweringEngineKeysAreReadOnly() {
        var state = DashboardState(mode: .attached)
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        state.observe(snapshot)
        var script = KeyScript(state)
        #expect(script.press(.character("o")) == [])
        #expect(script.state.message?.text.contains("read-only monitor") == true)
        snapshot.isReadOnlyMonitor = false
        script.state.observe(snapshot)
        #expect(script.press(.character("f"), .character("y")) == [.flush])
    }

    /// Issue 42, finding 7: a store no engine serves said "'f' works in beacon demo only"
    /// (an agent's or an app's engine takes it, and `beacon ctl`), and its header counted
    /// "1 paused, 1 idle" while the rows said unknown.
    @Test func aStoreNoEngineServesSaysWhatItKnows() {
        var snapshot = Fixtures.twoDestinations()
        snapshot.isReadOnlyMonitor = true
        var state = DashboardState(mode: .monitor)
        state.observe(snapshot)
        var script = KeyScript(state)
        #expect(script.press(.character("f")) == [])
        let text = script.state.message?.text ?? ""
        #expect(text.contains("needs a serving engine") && !text.contains("demo only"), "\(text)")
        #expect(script.press(.character("b")) == [])
        #expect(script.state.message?.text.contains("works in beacon demo only") == true, "the demo's own knob")
        let screen = DashboardRenderer.render(snapshot: snapshot, state: script.state, size: (80, 24)).text
        let header = screen.split(separator: "\n").prefix(3).joined(separator: "\n")
        #expect(header.contains("1 paused by operator, 2 unknown (no engine)"), "\(header)")
        #expect(!header.contains("idle") && !header.contains("sending"), "\(header)")
    }

    @Test(arguments: ["b", "B", "[", "]", "r", "c", "s"] as [Character])
    func demoKeysAreRefusedWithAMessage(key: Character) {
        var script = KeyScript(DashboardState(mode: .attached))
        #expect(script.press(.character(key)) == [])
        #expect(script.state.message?.text.contains("works in beacon demo only") == true)
    }

    @Test func headerAndFooterSayAttachedWhileTheEngineAnswers() {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = false
        snapshot.policy = .count(7)
        let grid = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .attached), size: (width: 100, height: 30))
        #expect(grid.row(0).contains("MONITOR (attached)"))
        #expect(grid.row(0).contains("count 7"))
        #expect(grid.row(28).contains("f:flush"))
        #expect(!grid.row(28).contains("b:burst"))
    }

    /// `beacon simulate --watch`: the title names the running step in place of the mode
    /// tag, still saying whether the engine answers, and a long caption is cut to fit 80 columns.
    @Test func aCaptionTakesTheTagsPlaceAndSaysTheMode() {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = false
        var state = DashboardState(mode: .attached)
        state.caption = "step 2/5: outage"
        let grid = DashboardRenderer.render(snapshot: snapshot, state: state, size: (width: 80, height: 24))
        #expect(grid.row(0).hasSuffix(" step 2/5: outage · attached"), "\(grid.row(0))")
        #expect(!grid.row(0).contains("MONITOR"))
        snapshot.isReadOnlyMonitor = true
        state.caption = "step 12/36: " + String(repeating: "a very long step name ", count: 10)
        let lost = DashboardRenderer.render(snapshot: snapshot, state: state, size: (width: 80, height: 24))
        #expect(lost.row(0).contains("step 12/36: a very"), "\(lost.row(0))")
        #expect(lost.row(0).hasPrefix(" BEACON "), "the status keeps its place: \(lost.row(0))")
        #expect(lost.row(0).hasSuffix("· read-only"), "the mode is never cut: \(lost.row(0))")
    }

    @Test func withoutTheEngineTheAttachedScreenIsReadOnly() {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        let grid = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .attached), size: (width: 100, height: 30))
        #expect(grid.row(0).contains("MONITOR (read-only)"))
        #expect(grid.row(28).contains("keys need a serving engine"))
    }

    /// An engine that was attached and stopped answering: a banner with the time, the tag
    /// says so, and its rates are unknown rather than the last ones seen.
    @Test func aLostEngineIsNamedWithItsTimeAndItsRatesGoBlank() {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        snapshot.engineLostAt = Timestamp(millisecondsSince1970: snapshot.time.millisecondsSince1970 - 12_000)
        let grid = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .attached), size: (width: 80, height: 24))
        let text = (0..<24).map { grid.row($0) }.joined(separator: "\n")
        #expect(grid.row(0).contains("ENGINE LOST"))
        #expect(grid.row(3).contains("ENGINE LOST at ") && grid.row(3).contains("(12.0 s ago): nothing serves this store"), "\(text)")
        #expect(text.contains("in          unknown") || text.contains("unknown"), "\(text)")
        #expect(!text.contains("120/s"), "the last rate is not shown as a fact: \(text)")
    }

    /// An engine that stopped answering but still holds its socket is not said to be gone.
    @Test func aSilentEngineIsNotSaidToBeGone() {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        snapshot.engineLostAt = Timestamp(millisecondsSince1970: snapshot.time.millisecondsSince1970 - 3_000)
        snapshot.engineLostReason = "the engine is there but silent"
        // At 80 columns the whole reason fits.
        let grid = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .attached), size: (width: 80, height: 24))
        let text = (0..<24).map { grid.row($0) }.joined(separator: "\n")
        #expect(grid.row(3).contains("(3.00 s ago): the engine is there but silent"), "\(text)")
        #expect(!text.contains("nothing serves this store"), "\(text)")
        #expect(text.contains("state unknown (engine lost)"), "\(text)")
        #expect(!text.contains("(no engine)"), "\(text)")
    }

    @Test func readOnlyByChoiceSaysSoInTheHeader() {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = false
        var state = DashboardState(mode: .attached)
        state.isReadOnlyByChoice = true
        let grid = DashboardRenderer.render(snapshot: snapshot, state: state, size: (width: 100, height: 30))
        #expect(grid.row(0).contains("MONITOR (attached, read-only)"))
        #expect(grid.row(2).contains("keys change nothing (--read-only)"))
    }
}

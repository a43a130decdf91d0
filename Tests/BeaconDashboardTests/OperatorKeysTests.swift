import Beacon
import BeaconDashboard
import BeaconWire
import Testing

/// The operator's keys: pause and resume a destination, and the dead-letter view (select,
/// retry, purge after a confirmation), in the demo, attached, and read-only.
@Suite struct OperatorKeysTests {
    static func withDeadLetters(_ mode: DashboardMode = .demo, readOnly: Bool = false) -> KeyScript {
        var snapshot = Fixtures.deadLetters()
        snapshot.isReadOnlyMonitor = readOnly
        var state = DashboardState(mode: mode)
        state.observe(snapshot)
        return KeyScript(state)
    }

    @Test func dOpensAndClosesTheView() {
        var script = Self.withDeadLetters()
        #expect(script.press(.character("d")) == [])
        #expect(script.state.view == .deadLetters)
        script.press(.character("d"))
        #expect(script.state.view == .main)
        script.press(.character("d"), .escape)
        #expect(script.state.view == .main)
    }

    @Test func theCursorStaysWithinTheList() {
        var script = Self.withDeadLetters()
        script.press(.character("d"), .up)
        #expect(script.state.deadLetterCursor == 0)
        for _ in 0..<20 { script.press(.down) }
        #expect(script.state.deadLetterCursor == 6)
        script.press(.character("k"), .character("k"))
        #expect(script.state.deadLetterCursor == 4)
        script.press(.character("j"))
        #expect(script.state.deadLetterCursor == 5)
    }

    @Test func rRetriesTheSelectedLetterAndRRetriesAll() {
        var script = Self.withDeadLetters()
        script.press(.character("d"), .down)
        #expect(script.press(.character("r")) == [.retryDeadLetters(.ids([106]))])
        #expect(script.press(.character("R")) == [.retryDeadLetters(.all)])
        #expect(script.state.message?.text == "retrying all 7 dead letters")
    }

    @Test func purgeAsksFirstAndOnlyYConfirms() {
        var script = Self.withDeadLetters()
        script.press(.character("d"), .down, .down)
        #expect(script.press(.character("x")) == [])
        #expect(script.state.confirmation == .purge(.ids([105])))
        #expect(script.press(.character("n")) == [], "any other key keeps them")
        #expect(script.state.confirmation == nil)
        #expect(script.state.message?.text == "nothing purged")
        script.press(.character("x"))
        #expect(script.press(.escape) == [])
        script.press(.character("x"))
        #expect(script.press(.character("y")) == [.purgeDeadLetters(.ids([105]))])
        script.press(.character("X"))
        #expect(script.state.confirmation == .purge(.all(count: 7)))
        #expect(script.press(.character("q")) == [], "q answers the question; it does not quit")
        #expect(!script.state.isQuitting)
        script.press(.character("X"))
        #expect(script.press(.character("Y")) == [.purgeDeadLetters(.all)])
    }

    @Test func anEmptyListSaysSo() {
        var script = KeyScript(Fixtures.demoState())
        script.press(.character("d"))
        #expect(script.press(.character("r")) == [])
        #expect(script.press(.character("X")) == [])
        #expect(script.state.confirmation == nil)
        #expect(script.state.message?.text == "no dead letters")
    }

    @Test func theViewLeavesHelpQuitAndEngineKeysToTheMainMap() {
        var script = Self.withDeadLetters()
        script.press(.character("d"))
        #expect(script.press(.character("f")) == [.flush])
        script.press(.character("?"))
        #expect(script.state.isHelpVisible)
        script.press(.escape)
        #expect(!script.state.isHelpVisible && script.state.view == .deadLetters, "Esc closes the help first")
        #expect(script.press(.character("q")) == [.quit])
    }

    @Test(arguments: [DashboardMode.monitor, .attached])
    func aReadOnlyMonitorShowsTheListButActsOnNothing(mode: DashboardMode) {
        var script = Self.withDeadLetters(mode, readOnly: true)
        script.press(.character("d"))
        #expect(script.state.view == .deadLetters, "looking needs no engine")
        for key in ["r", "R", "x", "X", "P"] as [Character] {
            #expect(script.press(.character(key)) == [], "\(key)")
            #expect(script.state.message?.text.contains("needs a serving engine") == true, "\(key)")
            #expect(script.state.confirmation == nil)
        }
    }

    @Test func pTogglesThePauseOfTheSelectedDestinationAndTabSelects() {
        var snapshot = Fixtures.twoDestinations()
        var state = DashboardState(mode: .attached)
        state.observe(snapshot)
        var script = KeyScript(state)
        #expect(script.state.destinationNames == ["primary", "warehouse", "archive"])
        #expect(script.press(.character("P"), .character("y")) == [.pause(destination: "primary")])
        #expect(script.press(.character("P"), .character("y")) == [.resume(destination: "primary")], "as the reducer last saw it")
        script.press(.tab, .tab)
        #expect(script.state.selectedDestinationName == "archive")
        #expect(script.press(.character("P"), .character("y")) == [.resume(destination: "archive")], "archive is paused by the operator")
        snapshot.destinations.removeLast()
        script.state.observe(snapshot)
        #expect(script.state.selectedDestination == 0, "a selection past the end goes back to the first")
        script.press(.tab, .tab)
        #expect(script.state.selectedDestinationName == "primary")
    }

    @Test func capitalRRetriesTheSelectedDestinationNowAndAReadOnlyMonitorRefusesIt() {
        let snapshot = Fixtures.twoDestinations()
        var state = DashboardState(mode: .attached)
        state.observe(snapshot)
        var script = KeyScript(state)
        #expect(script.press(.character("R")) == [])
        #expect(script.state.message?.text == "retry primary now on the live engine? y confirms, any other key cancels")
        #expect(script.press(.character("y")) == [.retryNow(destination: "primary")])
        // Issue 42, finding 10: it said "ending primary's backoff" of a destination sending.
        #expect(script.state.message?.text == "retry now: primary is not backing off; nothing to cut short")
        script.press(.tab)
        #expect(script.press(.character("R"), .character("y")) == [.retryNow(destination: "warehouse")])
        #expect(script.state.message?.text == "retry now: warehouse is paused, not backing off (P resumes it)")
        var backingOff = snapshot
        backingOff.destinations[0].state = .backingOff(until: Timestamp(millisecondsSince1970: Fixtures.t0 + 5_000))
        script.state.observe(backingOff)
        script.press(.tab, .tab)
        #expect(script.state.selectedDestinationName == "primary")
        #expect(script.press(.character("R"), .character("y")) == [.retryNow(destination: "primary")])
        #expect(script.state.message?.text == "retry now: ending primary's backoff")
        var monitor = DashboardState(mode: .monitor)
        monitor.observe(snapshot)
        var readOnly = KeyScript(monitor)
        #expect(readOnly.press(.character("R")) == [])
        #expect(readOnly.state.message?.text.contains("needs a serving engine") == true)
    }

    @Test func theHelpListsTheOperatorKeys() {
        var state = Fixtures.demoState()
        state.isHelpVisible = true
        let grid = DashboardRenderer.render(snapshot: Fixtures.steady(), state: state, size: (width: 80, height: 24))
        let text = (0..<24).map { grid.row($0) }.joined(separator: "\n")
        #expect(text.contains("pause / resume the selected destination"))
        #expect(text.contains("retry the selected destination now (ends its backoff)"))
        #expect(text.contains("dead letters: ↑↓ select, ⏎ open, / search,"))
        #expect(text.contains("R X all the search finds"))
        var monitor = DashboardState(mode: .monitor)
        monitor.isHelpVisible = true
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        let readOnly = DashboardRenderer.render(snapshot: snapshot, state: monitor, size: (width: 80, height: 24))
        let help = (0..<24).map { readOnly.row($0) }.joined(separator: "\n")
        #expect(help.contains("need a serving engine on this store"))
    }
}

import Beacon
import BeaconDashboard
import Testing

/// The monitor attached to another process's engine: engine keys act, demo keys do not,
/// and the screen says which it is.
@Suite struct AttachedModeTests {
    @Test func engineKeysProduceEngineActions() {
        var script = KeyScript(DashboardState(mode: .attached))
        #expect(script.press(.character("f")) == [.flush])
        #expect(script.press(.character("o")) == [.setOffline(true)])
        #expect(script.press(.character("+")) == [.setBatchSize(200)])
        #expect(script.press(.character("-")) == [.setBatchSize(100)])
        script.press(.character("p"))
        #expect(script.type("count 7") == [])
        #expect(script.press(.enter) == [.setPolicy(.count(7))])
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
        #expect(script.press(.character("f")) == [.flush])
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

    @Test func withoutTheEngineTheAttachedScreenIsReadOnly() {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        let grid = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .attached), size: (width: 100, height: 30))
        #expect(grid.row(0).contains("MONITOR (read-only)"))
        #expect(grid.row(28).contains("keys need a serving engine"))
    }
}

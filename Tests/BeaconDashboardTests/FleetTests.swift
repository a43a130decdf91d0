import Beacon
import BeaconDashboard
import BeaconWire
import Testing

/// Several engines on one screen: one true summary row each, Enter opens one with its own
/// dashboard and keys, Esc goes back, and a lost engine says since when with no rates.
@Suite struct FleetTests {
    /// Six stores: flowing, backing off and stalled, lost, one nothing serves, one not
    /// read yet, and a file that is not a store (yet).
    static func snapshots() -> [EngineSnapshot?] {
        var lost = Fixtures.steady()
        lost.engineLostAt = Timestamp(millisecondsSince1970: Fixtures.t0 - 12_000)
        lost.isReadOnlyMonitor = true
        var unserved = Fixtures.deadLetters()
        unserved.isReadOnlyMonitor = true
        var unreadable = Fixtures.steady()
        unreadable.unreadableStore = "is an empty SQLite file, not yet a Beacon store: if a process is creating it, try again"
        return [Fixtures.steady(), Fixtures.outageWithRetries(), lost, unserved, nil, unreadable]
    }

    static func state(_ mode: DashboardMode = .attached, readOnly: Bool = false) -> FleetState {
        var engine = DashboardState(mode: mode)
        engine.isReadOnlyByChoice = readOnly
        var state = FleetState(names: ["orders", "payments", "search", "billing", "mailer", "ledger"], engine: engine)
        for (index, snapshot) in snapshots().enumerated() {
            if let snapshot { state.observe(snapshot, engine: index) }
        }
        return state
    }

    @Test func eachRowSaysWhatItsSnapshotSays() {
        let rows = zip(Self.state().names, Self.snapshots()).map { FleetRow(name: $0, snapshot: $1) }
        #expect(rows[0].condition == .sending && rows[0].rateIn == 120.4 && rows[0].failing.isEmpty)
        #expect(rows[1].condition == .stalled, "a stall outranks its backoff")
        #expect(rows[1].failing == ["default"] && rows[1].depth == 1_850)
        #expect(rows[1].oldestPending == 95_000)
        #expect(rows[2].condition == .lost(since: Timestamp(millisecondsSince1970: Fixtures.t0 - 12_000)))
        #expect(rows[2].rateIn == nil && rows[2].rateOut == nil, "a lost engine's rates are unknown, not its last ones")
        #expect(rows[3].condition == .noEngine && rows[3].deadLetters == 7 && rows[3].rateIn == nil)
        #expect(rows[4].condition == .waiting && rows[4].depth == nil)
        #expect(rows[5].condition == .unreadable(reason: "is an empty SQLite file, not yet a Beacon store: if a process is creating it, try again"))
        #expect(rows[5].depth == nil && rows[5].rateIn == nil && rows[5].deadLetters == nil, "nothing read stands for the store")
        var backingOff = Fixtures.outageWithRetries()
        backingOff.destinations[0].stalled = false
        let row = FleetRow(name: "x", snapshot: backingOff)
        #expect(row.condition == .backingOff(nextRetry: Timestamp(millisecondsSince1970: Fixtures.t0 + 7_250)))
        var quiet = Fixtures.steady()
        for index in quiet.destinations.indices {
            quiet.destinations[index].state = .idle
            quiet.destinations[index].stalled = false
        }
        #expect(FleetRow(name: "x", snapshot: quiet).condition == .idle)
        quiet.destinations[0].state = .starting
        #expect(FleetRow(name: "x", snapshot: quiet).condition == .starting, "one not reported yet: not known to be idle")
        quiet.destinations = []
        #expect(FleetRow(name: "x", snapshot: quiet).condition == .starting, "none reported yet: the engine is starting")
    }

    /// Issue 42, finding 3: two destinations, main down and backup delivering 20/s while
    /// failing 30 % of its requests: the row said `out 0/s` and no failing destination.
    @Test func outAndFailingCountEveryDestination() {
        var snapshot = Fixtures.steady()
        snapshot.rateOut = 0  // nothing every destination is done with leaves the queue
        snapshot.destinations = [
            DestinationStatus(name: "main", endpoint: "e", depth: 900, state: .backingOff(until: Timestamp(millisecondsSince1970: Fixtures.t0 + 5_000))),
            DestinationStatus(name: "backup", endpoint: "e", depth: 0, state: .sending),
        ]
        snapshot.destinations[0].deliveryRate = 0
        snapshot.destinations[1].deliveryRate = 20
        snapshot.destinations[1].failureRate = 0.3
        let row = FleetRow(name: "x", snapshot: snapshot)
        #expect(row.rateOut == 20, "what the destinations deliver")
        #expect(row.failing == ["main", "backup"], "backup fails 30 % of its requests")
        snapshot.destinations[1].failureRate = 0.05
        #expect(FleetRow(name: "x", snapshot: snapshot).failing == ["main"], "one failure in twenty: not failing")
        snapshot.destinations[1].failingSince = Timestamp(millisecondsSince1970: Fixtures.t0)
        #expect(FleetRow(name: "x", snapshot: snapshot).failing == ["main", "backup"], "its last request failed")
        snapshot.destinations[1].deliveryRate = nil
        #expect(FleetRow(name: "x", snapshot: snapshot).rateOut == 0, "a rate not known: the queue's")
    }

    @Test func theListAt80x24() throws {
        let grid = DashboardRenderer.renderFleet(snapshots: Self.snapshots(), state: Self.state(), size: (80, 24))
        let text = grid.text
        #expect(text.contains("6 engines") && text.contains("1 lost") && text.contains("1 failing"), "\(text)")
        #expect(text.contains("LOST 23:59:48"), "\(text)")
        try expectFleetGolden("fleet-80x24", grid)
    }

    @Test func enterOpensAnEngineWithItsOwnKeysAndEscGoesBack() {
        var state = Self.state()
        var (next, actions) = FleetReducer.reduce(state, .down)
        #expect(next.cursor == 1 && actions.isEmpty)
        (next, _) = FleetReducer.reduce(next, .enter)
        #expect(next.focused == 1)
        let open = DashboardRenderer.renderFleet(snapshots: Self.snapshots(), state: next, size: (80, 24)).text
        #expect(open.contains("MONITOR (attached)") && open.contains("engine 2 of 6: payments") && open.contains("Esc:engines"), "\(open)")
        // Its keys are its own dashboard's: a flush asks first, then goes to engine 1 only.
        (next, actions) = FleetReducer.reduce(next, .character("f"))
        #expect(actions.isEmpty && next.engines[1].confirmation != nil && next.engines[0].confirmation == nil)
        (next, actions) = FleetReducer.reduce(next, .character("y"))
        #expect(actions == [.engine(1, .flush)])
        // Esc closes what the engine has open first, then goes back to the list.
        (next, _) = FleetReducer.reduce(next, .character("d"))
        (next, _) = FleetReducer.reduce(next, .escape)
        #expect(next.focused == 1 && next.engines[1].view == .main)
        (next, _) = FleetReducer.reduce(next, .escape)
        #expect(next.focused == nil && next.cursor == 1)
        (next, actions) = FleetReducer.reduce(next, .character("q"))
        #expect(actions == [.quit] && next.isQuitting)
        state.cursor = 5
        (next, _) = FleetReducer.reduce(state, .down)
        #expect(next.cursor == 5, "the cursor stays on the list")
    }

    @Test func readOnlyRefusesEveryActionKeyInAnOpenEngine() {
        var state = Self.state(readOnly: true)
        state.focused = 0
        for key in ["f", "o", "p", "P", "R", "+"] as [Character] {
            let (next, actions) = FleetReducer.reduce(state, .character(key))
            #expect(actions.isEmpty && next.engines[0].confirmation == nil, "\(key)")
            #expect(next.engines[0].message?.text.contains("read-only (--read-only)") == true, "\(key)")
        }
    }

    @Test func namesDifferByAsMuchOfThePathAsItTakes() {
        #expect(FleetState.names(forPaths: ["/srv/a/orders.sqlite", "/srv/b/search.sqlite"]) == ["orders", "search"])
        #expect(FleetState.names(forPaths: ["/srv/a/queue.sqlite", "/srv/b/queue.sqlite"]) == ["a/queue", "b/queue"])
        #expect(FleetState.names(forPaths: ["queue.sqlite", "/x/queue.sqlite"]) == ["queue", "x/queue"])
    }

    private func expectFleetGolden(_ name: String, _ grid: CellGrid, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try compareGolden(name, grid.text + "\n", sourceLocation: sourceLocation)
    }
}

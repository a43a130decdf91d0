import Beacon
import BeaconDashboard
import Testing

@Suite struct LayoutTests {
    static let snapshots = [
        Fixtures.empty(), Fixtures.steady(), Fixtures.offlineBacklog(), Fixtures.outageWithRetries(),
        Fixtures.deadLetters(), Fixtures.storageProblem(), Fixtures.twoDestinations(),
    ]

    /// Every size from the minimum up renders the header and the keys, and nothing else
    /// pushes them off.
    @Test func everySizeKeepsHeaderAndFooter() {
        for snapshot in Self.snapshots {
            for width in stride(from: 40, through: 220, by: 9) {
                for height in stride(from: 10, through: 70, by: 3) {
                    let grid = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo),
                                                        size: (width: width, height: height))
                    #expect(grid.row(0).hasPrefix(" BEACON "), "\(width)x\(height)")
                    #expect(grid.row(height - 2).contains("q:quit"), "\(width)x\(height)")
                }
            }
        }
    }

    @Test func moreRoomShowsMoreHistoryAndAWiderGraph() {
        let snapshot = Fixtures.steady()
        let small = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo), size: (width: 80, height: 24))
        let large = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo), size: (width: 200, height: 60))
        func historyRows(_ grid: CellGrid) -> Int {
            (0..<grid.height).filter { grid.row($0).hasSuffix(" sent") || grid.row($0).contains(" sent ") }.count
        }
        func graphCells(_ grid: CellGrid) -> Int {
            grid.cells.filter { "▁▂▃▄▅▆▇█".contains($0.character) }.count
        }
        #expect(historyRows(large) > historyRows(small) * 3)
        #expect(graphCells(large) > graphCells(small) * 3)
    }

    @Test func belowTheMinimumSaysSo() {
        for size in [(39, 24), (80, 9), (10, 3)] {
            let grid = DashboardRenderer.render(snapshot: Fixtures.steady(), state: DashboardState(mode: .demo),
                                                size: (width: size.0, height: size.1))
            #expect(grid.text.contains("too small"), "\(size)")
        }
        let none = DashboardRenderer.render(snapshot: Fixtures.steady(), state: DashboardState(mode: .demo), size: (width: 0, height: 0))
        #expect(none.cells.isEmpty)
    }

    @Test func renderIsDeterministic() {
        let first = DashboardRenderer.render(snapshot: Fixtures.outageWithRetries(), state: Fixtures.demoState(), size: (width: 120, height: 40))
        let second = DashboardRenderer.render(snapshot: Fixtures.outageWithRetries(), state: Fixtures.demoState(), size: (width: 120, height: 40))
        #expect(first == second)
    }

    @Test func waitingScreenBeforeTheFirstSnapshot() {
        let grid = DashboardRenderer.renderWaiting(state: DashboardState(mode: .monitor), size: (width: 80, height: 24))
        #expect(grid.text.contains("waiting for the engine's first snapshot"))
        #expect(grid.row(22).contains("q:quit"))
    }

    @Test func monitorHeaderSaysReadOnly() {
        let grid = DashboardRenderer.render(snapshot: Fixtures.steady(), state: DashboardState(mode: .monitor), size: (width: 80, height: 24))
        #expect(grid.row(0).contains("MONITOR (read-only)"))
        #expect(!grid.row(22).contains("f:flush"))
    }
}

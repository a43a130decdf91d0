import Beacon
import BeaconDashboard
import BeaconTesting
import Testing

@Suite struct LayoutTests {
    static let snapshots = [
        Fixtures.empty(), Fixtures.steady(), Fixtures.offlineBacklog(), Fixtures.outageWithRetries(),
        Fixtures.deadLetters(), Fixtures.storageProblem(), Fixtures.twoDestinations(), Fixtures.remoteConfig(),
        Fixtures.remoteConfigFailing(),
    ]

    /// Every size from the minimum up renders the header and the keys, and nothing else
    /// pushes them off.
    /// The snapshots render on both cores at once (each render is pure).
    @Test func everySizeKeepsHeaderAndFooter() async throws {
        _ = try await concurrently(Self.snapshots, width: 2) { snapshot in
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

    /// The remote-config line takes the fourth header row only when a syncer reports, and
    /// costs one history row; without one the header keeps three lines.
    @Test func remoteConfigLineOnlyWithASyncer() {
        func render(_ snapshot: EngineSnapshot) -> CellGrid {
            DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo), size: (width: 80, height: 24))
        }
        let without = render(Fixtures.steady())
        let with = render(Fixtures.remoteConfig())
        #expect(!without.text.contains(" config "))
        #expect(with.row(3).hasPrefix(" config 5f2c0a9e3b7d4411  synced 23:59:56 UTC (4s ago)  every 5s  blocked 12"))
        #expect(with.row(4).contains("Queue depth"))
        func historyRows(_ grid: CellGrid) -> Int { (0..<grid.height).filter { grid.row($0).hasSuffix(" sent") }.count }
        #expect(historyRows(with) == historyRows(without) - 1)
        let short = DashboardRenderer.render(snapshot: Fixtures.remoteConfig(), state: DashboardState(mode: .demo), size: (width: 80, height: 19))
        #expect(!short.text.contains(" config "), "one header line below 20 rows")
    }

    @Test func remoteConfigMarkers() {
        var snapshot = Fixtures.remoteConfig()
        snapshot.remoteConfig = RemoteConfigSummary()
        func line(_ snapshot: EngineSnapshot, width: Int = 80) -> String {
            DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo), size: (width: width, height: 24)).row(3)
        }
        #expect(line(snapshot).hasPrefix(" config none yet  not synced yet"))
        snapshot.remoteConfig?.lastError = "connection refused"
        snapshot.remoteConfig?.consecutiveFailures = 1
        #expect(line(snapshot).hasPrefix(" config none yet  last poll failed  not synced yet"))
        snapshot = Fixtures.remoteConfig()
        snapshot.remoteConfig?.feedWarning = "The config file is not valid JSON. Serving the last good version."
        #expect(line(snapshot).hasPrefix(" config 5f2c0a9e3b7d4411  feed warning  synced "))
        snapshot.remoteConfig?.version = "a-very-long-version-token-from-another-server"
        #expect(line(snapshot, width: 40).hasPrefix(" config a-very-long-ver…  feed warning"))
    }

    /// Issue 42, finding 9: at 80 columns the policy prompt's hint ended "…or type e.g" and a
    /// confirmation's keys went off the screen behind a long label.
    @Test func promptsAndConfirmationsFitEightyColumns() {
        var prompting = DashboardState(mode: .demo)
        prompting.prompt = Prompt(kind: .policy)
        let prompt = DashboardRenderer.render(snapshot: Fixtures.steady(), state: prompting, size: (width: 80, height: 24))
        #expect(prompt.row(22).hasSuffix("or e.g. count 50"), "\(prompt.row(22))")
        var confirming = DashboardState(mode: .attached)
        confirming.confirmation = .engineKey(.character("P"), label: "pause " + String(repeating: "a-very-long-destination-", count: 5))
        let confirmation = DashboardRenderer.render(snapshot: Fixtures.steady(), state: confirming, size: (width: 80, height: 24))
        let line = (0..<confirmation.height).map(confirmation.row).first { $0.contains("a-very-long") } ?? ""
        #expect(line.hasSuffix(" y yes  other key no") && line.contains(" pause a-very-long") && line.contains("…"),
                "\(line)")
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

    /// A monitor reading another process's store knows neither its policy nor its batch
    /// size, and says so rather than show defaults.
    @Test func monitorOfAStoreClaimsNoPolicyOrBatchSize() {
        struct Unreadable: Error {}
        var builder = StoreSnapshotBuilder(storePath: "/var/lib/beacon/queue.sqlite")
        let snapshot = builder.failure(Unreadable(), elapsed: .zero, time: .init(millisecondsSince1970: Fixtures.t0))
        let grid = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .monitor), size: (width: 80, height: 24))
        #expect(grid.row(0).contains("policy unknown"))
        #expect(grid.row(0).contains("batch unknown"))
        #expect(!grid.row(0).contains("count 100"))
        #expect(grid.row(0).contains("MONITOR (read-only)"))
    }

    @Test func monitorHeaderSaysReadOnly() {
        let grid = DashboardRenderer.render(snapshot: Fixtures.steady(), state: DashboardState(mode: .monitor), size: (width: 80, height: 24))
        #expect(grid.row(0).contains("MONITOR (read-only)"))
        #expect(!grid.row(22).contains("f:flush"))
    }
}

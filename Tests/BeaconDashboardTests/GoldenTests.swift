import Beacon
import BeaconDashboard
import BeaconWire
import Foundation
import Testing

/// Renders compared with committed text under `Golden/`. Set `BEACON_UPDATE_GOLDEN=1` to
/// rewrite the files from the current renderer (then review the diff before committing).
@Suite struct GoldenTests {
    @Test func empty() throws {
        try expectGolden("empty-80x24", Fixtures.empty(), DashboardState(mode: .demo), 80, 24)
    }

    /// Before its batcher reports, the engine's destination is not known to be idle.
    @Test func noDestinationReportedYetReadsStarting() {
        var snapshot = Fixtures.empty()
        snapshot.destinations = []
        let header = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo), size: (width: 80, height: 24))
            .text.split(separator: "\n").prefix(3).joined(separator: "\n")
        #expect(header.contains("destination starting"), "\(header)")
        #expect(!header.contains("idle"), "\(header)")
        snapshot.isOffline = true
        let offline = DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo), size: (width: 80, height: 24)).text
        #expect(offline.split(separator: "\n").prefix(3).joined().contains("destination offline"), "offline is known: it is a setting")
    }

    @Test func steadyFlowAt80x24() throws {
        try expectGolden("steady-80x24", Fixtures.steady(), Fixtures.demoState(), 80, 24)
    }

    @Test func steadyFlowAt200x60() throws {
        try expectGolden("steady-200x60", Fixtures.steady(), Fixtures.demoState(), 200, 60)
    }

    @Test func offlineBacklog() throws {
        let state = Fixtures.demoState { $0.isOffline = true }
        try expectGolden("offline-backlog-80x24", Fixtures.offlineBacklog(), state, 80, 24)
    }

    @Test func outageWithRetries() throws {
        let state = Fixtures.demoState { $0.faultPreset = .down }
        try expectGolden("outage-retries-80x24", Fixtures.outageWithRetries(), state, 80, 24)
        try expectGolden("outage-retries-80x24.styles", Fixtures.outageWithRetries(), state, 80, 24, styles: true)
    }

    @Test func deadLetters() throws {
        try expectGolden("dead-letters-80x24", Fixtures.deadLetters(), Fixtures.demoState(), 80, 24)
    }

    /// `d`: the dead-letter view with the second letter selected, then a purge of all
    /// waiting for its `y`.
    @Test func deadLetterView() throws {
        var state = Fixtures.demoState()
        state.observe(Fixtures.deadLetters())
        for key: Key in [.character("d"), .down] { state = DashboardReducer.reduce(state, key).0 }
        try expectGolden("dead-letter-view-80x24", Fixtures.deadLetters(), state, 80, 24)
        state = DashboardReducer.reduce(state, .character("X")).0
        #expect(state.confirmation == .purge(.all(count: 7)))
        try expectGolden("dead-letter-purge-confirm-80x24", Fixtures.deadLetters(), state, 80, 24)
    }

    /// The disk under the store: its size and the room left after the store's path, and a
    /// DISK LOW line when it is nearly full (how soon at the current inflow), the longest
    /// figures the engine can give.
    @Test func diskLow() throws {
        var snapshot = Fixtures.steady()
        snapshot.disk = StoreDisk(storeBytes: 48_123_456_789, freeBytes: 1_234_567_890, totalBytes: 999_000_000_000_000)
        snapshot.diskFullInSeconds = 2_460
        let state = Fixtures.demoState()
        #expect(snapshot.isDiskLow)
        try expectGolden("disk-low-80x24", snapshot, state, 80, 24)
        snapshot.diskFullInSeconds = 1e300
        snapshot.disk?.freeBytes = .max
        snapshot.disk?.totalBytes = .max
        let grid = DashboardRenderer.render(snapshot: snapshot, state: state, size: (80, 24))
        #expect(!grid.text.contains("DISK LOW"), "plenty of room, however far the full disk")
    }

    /// `n`: the event names, the busiest first, with the longest values the engine gives
    /// (a name cut at 128 bytes, counts near Int.max, a share under 1 %), then the same
    /// view on a store no engine serves.
    @Test func eventNamesView() throws {
        var snapshot = Fixtures.steady()
        snapshot.eventNames = [
            EngineSnapshot.EventName(name: "page_view", count: 1_234_567, rate: 812.4),
            EngineSnapshot.EventName(name: String(repeating: "Checkout Step Completed ", count: 6), count: 98_765, rate: 42.5),
            EngineSnapshot.EventName(name: "signup", count: 1_204, rate: 0.4),
            EngineSnapshot.EventName(name: "(no name)", count: 3, rate: nil),
        ] + (0..<6).map { EngineSnapshot.EventName(name: "feature_\($0)_used", count: 900 - $0, rate: 1) }
        snapshot.otherEventNames = 55_000
        var state = Fixtures.demoState()
        state.observe(snapshot)
        state = DashboardReducer.reduce(state, .character("n")).0
        #expect(state.view == .eventNames)
        try expectGolden("event-names-80x24", snapshot, state, 80, 24)
        var huge = snapshot
        huge.eventNames = [EngineSnapshot.EventName(name: "flood", count: .max - 10, rate: 1e300)]
        huge.otherEventNames = .max
        let grid = DashboardRenderer.render(snapshot: huge, state: state, size: (80, 24))
        #expect(grid.text.contains("flood"), "\(grid.text)")
        var unserved = Fixtures.deadLetters()
        unserved.isReadOnlyMonitor = true
        var monitor = DashboardState(mode: .monitor)
        monitor.observe(unserved)
        monitor = DashboardReducer.reduce(monitor, .character("n")).0
        try expectGolden("event-names-monitor-80x24", unserved, monitor, 80, 24)
        #expect(DashboardReducer.reduce(monitor, .character("n")).0.view == .main, "n closes it")
    }

    /// The read-only monitor's dead-letter view: the list, and keys that say they need an engine.
    @Test func deadLetterViewReadOnly() throws {
        var snapshot = Fixtures.deadLetters()
        snapshot.isReadOnlyMonitor = true
        snapshot.policy = nil
        snapshot.batchSize = nil
        var state = DashboardState(mode: .monitor)
        state.observe(snapshot)
        for key: Key in [.character("d"), .character("r")] { state = DashboardReducer.reduce(state, key).0 }
        try expectGolden("dead-letter-view-monitor-80x24", snapshot, state, 80, 24)
    }

    @Test func storageProblem() throws {
        try expectGolden("storage-problem-80x24", Fixtures.storageProblem(), Fixtures.demoState(), 80, 24)
    }

    /// A queue at its event bound: a banner where the storage fault line goes.
    @Test func queueFull() throws {
        var snapshot = Fixtures.steady()
        snapshot.depth = 1_000_000
        snapshot.queuedBytes = 243_000_000
        snapshot.queueBounds = QueueBounds(maxEvents: 1_000_000, maxBytes: 512 << 20)
        #expect(snapshot.isQueueFull)
        try expectGolden("queue-full-80x24", snapshot, Fixtures.demoState(), 80, 24)
        snapshot.depth = 999_999
        #expect(!snapshot.isQueueFull, "one event short of the bound is not full")
    }

    /// Each destination state at 80 columns: the state, pending, oldest age, next retry
    /// and error code stay; the long text goes to the end.
    @Test func everyDestinationStateAt80x24() throws {
        try expectGolden("every-destination-state-80x24", Fixtures.everyDestinationState(), Fixtures.demoState(), 80, 24)
        let eu = Fixtures.demoState { $0.observe(Fixtures.everyDestinationState()); $0.selectedDestination = 2 }
        try expectGolden("every-destination-state-selected-80x24", Fixtures.everyDestinationState(), eu, 80, 24)
        var offline = Fixtures.everyDestinationState()
        offline.isOffline = true
        offline.destinations = offline.destinations.map { var destination = $0; destination.state = .offline; return destination }
        try expectGolden("every-destination-offline-80x24", offline, Fixtures.demoState { $0.isOffline = true }, 80, 24)
    }

    @Test func twoDestinations() throws {
        try expectGolden("two-destinations-100x30", Fixtures.twoDestinations(), Fixtures.demoState(), 100, 30)
    }

    @Test func monitorMode() throws {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        try expectGolden("monitor-80x24", snapshot, DashboardState(mode: .monitor), 80, 24)
    }

    /// `beacon monitor` on another process's store: the settings it cannot know read `unknown`.
    @Test func monitorOfAStore() throws {
        var snapshot = Fixtures.steady()
        snapshot.isReadOnlyMonitor = true
        snapshot.policy = nil
        snapshot.batchSize = nil
        snapshot.endpoint = "another process (watched read-only)"
        try expectGolden("monitor-store-80x24", snapshot, DashboardState(mode: .monitor), 80, 24)
        try expectGolden("monitor-store-80x24.styles", snapshot, DashboardState(mode: .monitor), 80, 24, styles: true)
    }

    @Test func helpOverlay() throws {
        let state = Fixtures.demoState { $0.isHelpVisible = true }
        try expectGolden("help-80x24", Fixtures.steady(), state, 80, 24)
    }

    @Test("Sparklines: depth, in and out over the last ten minutes beside their values, an incident's shape")
    func trendSparklines() throws {
        var snapshot = Fixtures.steady()
        // Ten minutes: steady, then the collector goes away (out falls to 0, depth climbs),
        // then it is back (out above in, depth falls).
        snapshot.trend = (0..<60).map { point in
            switch point {
            case ..<30: Trend.Point(depth: 40, rateIn: 120, rateOut: 120)
            case ..<45: Trend.Point(depth: 40 + (point - 29) * 1_200, rateIn: 120, rateOut: 0)
            default: Trend.Point(depth: max(0, 18_040 - (point - 44) * 1_500), rateIn: 120, rateOut: 270)
            }
        }
        try expectGolden("trend-80x24", snapshot, Fixtures.demoState(), 80, 24)
        let lines = DashboardRenderer.render(snapshot: snapshot, state: Fixtures.demoState(), size: (80, 24)).text
            .split(separator: "\n").map(String.init)
        let depth = try #require(lines.first { $0.contains("│ depth ") })
        let out = try #require(lines.first { $0.contains("│ out ") })
        // The outage shows: the depth's highest bar in the middle, out's floor there.
        #expect(depth.contains("█") && out.contains("▁") && out.contains("█"), "\(depth)\n\(out)")
        // No trend yet (an engine just started, a store no engine serves): no sparkline.
        let plain = DashboardRenderer.render(snapshot: Fixtures.steady(), state: Fixtures.demoState(), size: (80, 24)).text
        let plainDepth = try #require(plain.split(separator: "\n").first { $0.contains("│ depth ") })
        #expect(!(plainDepth.split(separator: "│").last ?? "").contains { "▁▂▃▄▅▆▇█".contains($0) }, "\(plainDepth)")
        // Extremes read sanely: huge, NaN and infinite rates, negative depths.
        var extreme = Fixtures.steady()
        extreme.trend = [Trend.Point(depth: .max, rateIn: .nan, rateOut: .infinity), Trend.Point(depth: -5, rateIn: 1e300, rateOut: -1)]
        #expect(extreme.trend[0].rateIn == 0 && extreme.trend[0].rateOut == 0 && extreme.trend[1].depth == 0)
        let rendered = DashboardRenderer.render(snapshot: extreme, state: Fixtures.demoState(), size: (80, 24)).text
        #expect(rendered.contains("│ depth "), "\(rendered)")
    }

    @Test("l: the operator log, newest first, refusals with their reasons, the longest values")
    func operatorLogView() throws {
        var state = Fixtures.demoState()
        state = DashboardReducer.reduce(state, .character("l")).0
        #expect(state.view == .operatorLog)
        func at(_ ago: Int64) -> Timestamp { Timestamp(millisecondsSince1970: Fixtures.t0 - ago) }
        state.operatorLog.actions = [
            OperatorAction(id: 9, at: at(2_000), command: "dead-purge", argument: #"{"ids":[3,4]}"#, applied: true, reason: nil,
                           peerUID: 1_000, peerPID: 4_242),
            OperatorAction(id: 8, at: at(65_000), command: "pause", argument: #""ghost\u0000""#, applied: false,
                           reason: "no destination named \"ghost\u{0}\"; this engine has: default, backup", peerUID: .max, peerPID: .max),
            OperatorAction(id: 7, at: at(3_600_000), command: "policy", argument: #""count 50 or 30s""#, applied: true, reason: nil,
                           peerUID: 0, peerPID: 1),
            OperatorAction(id: 6, at: at(90_000_000), command: "flush", argument: nil, applied: false, reason: "the engine is offline",
                           peerUID: nil, peerPID: nil),
        ]
        try expectGolden("operator-log-80x24", Fixtures.steady(), state, 80, 24)
        let text = DashboardRenderer.render(snapshot: Fixtures.steady(), state: state, size: (80, 24)).text
        #expect(text.contains("↳ no destination named \"ghost\\u{0}\"; this engine has: default, backup"), "the reason whole: \(text)")
        #expect(text.contains("unknown peer"))
        #expect(!text.unicodeScalars.contains("\u{0}"), "a NUL is written out, never drawn")
        #expect(DashboardReducer.reduce(state, .character("l")).0.view == .main, "l closes it")
        #expect(DashboardReducer.reduce(state, .escape).0.view == .main, "so does Esc")
        var empty = Fixtures.demoState()
        empty = DashboardReducer.reduce(empty, .character("l")).0
        empty.operatorLog.actions = []
        #expect(DashboardRenderer.render(snapshot: Fixtures.steady(), state: empty, size: (80, 24)).text.contains("no command kept yet"))
    }

    @Test("? twice: the legend, a line for each figure; a third time closes it")
    func figureLegend() throws {
        var state = Fixtures.demoState()
        state = DashboardReducer.reduce(state, .character("?")).0
        #expect(state.isHelpVisible && state.helpPage == .keys)
        state = DashboardReducer.reduce(state, .character("?")).0
        #expect(state.isHelpVisible && state.helpPage == .figures)
        try expectGolden("figures-legend-80x24", Fixtures.steady(), state, 80, 24)
        let text = DashboardRenderer.render(snapshot: Fixtures.steady(), state: state, size: (80, 24)).text
        // Every figure of the main screen is explained.
        for figure in ["depth", "queued", "in  out", "in memory", "accepted", "delivered", "batch max", "peak", "oldest",
                       "pending", "failing since", "drains in", "sent retried", "split", "dead-lettered", "dropped", "refused", "p50"] {
            #expect(text.contains("│ \(figure)"), "the legend lacks \(figure)")
        }
        #expect(!DashboardReducer.reduce(state, .character("?")).0.isHelpVisible)
        #expect(!DashboardReducer.reduce(state, .escape).0.isHelpVisible)
    }

    @Test("e: the pending view, the longest values the engine can produce, the selected event's JSON below")
    func pendingEventsView() throws {
        let snapshot = Fixtures.twoDestinations()
        var state = Fixtures.demoState()
        state.observe(snapshot)
        state = DashboardReducer.reduce(state, .character("e")).0
        #expect(state.view == .pendingEvents)
        #expect(state.pendingEventsQuery.destination == "primary", "several destinations: the selected one's")
        func record(_ sequence: Int64, name: String, ago: Int64) -> PendingEventRecord {
            let digits = String(String(sequence).suffix(12))
            let event = Event(name: name, properties: ["index": .int(Int(sequence)), "sku": .string("SKU-\(sequence)")],
                              messageId: "01a237e1-a4b0-7000-9f14-" + String(repeating: "0", count: 12 - digits.count) + digits,
                              timestamp: .init(millisecondsSince1970: Fixtures.t0 - ago), userId: "user-\(sequence)")
            return PendingEventRecord(sequence: sequence, messageId: event.messageId, name: name,
                                      createdAt: .init(millisecondsSince1970: Fixtures.t0 - ago), payload: event.jsonBytes)
        }
        let longName = String(repeating: "Checkout Step Completed ", count: 8)
        let page = PendingEventsPage(
            pending: Int.max,
            head: [record(1 << 62 - 40, name: longName, ago: 4 * 86_400_000), record(1 << 62 - 39, name: "Page Viewed", ago: 3_600_000),
                   record(1 << 62 - 38, name: "Naïve 名前 \u{1F600}", ago: 61_000)],
            tail: [record(1 << 62 - 2, name: "Signed Up", ago: 1_000), record(1 << 62 - 1, name: "Order Completed", ago: 0)],
            matching: Int.max, destinations: ["archive", "primary", "warehouse"])
        state.pendingEvents.receive(page, destination: "primary")
        try expectGolden("pending-events-80x24", snapshot, state, 80, 24)
        let text = DashboardRenderer.render(snapshot: snapshot, state: state, size: (80, 24)).text
        #expect(text.contains("9,223,372,036,854,775,802 more pending between"), "\(text)")
        // The cursor walks the listed events, skipping the gap; G ends on the newest.
        state = DashboardReducer.reduce(state, .down).0
        #expect(state.pendingEvents.selected?.name == "Page Viewed")
        state = DashboardReducer.reduce(state, .character("G")).0
        #expect(state.pendingEvents.selected?.name == "Order Completed")
        let newest = DashboardRenderer.render(snapshot: snapshot, state: state, size: (80, 24)).text
        #expect(newest.contains("seq \(1 << 62 - 1) · messageId"), "the newest event's detail is shown: \(newest)")
        // A new page keeps the cursor on the same event.
        state.pendingEvents.receive(page, destination: "primary")
        #expect(state.pendingEvents.selected?.name == "Order Completed")
        // Tab moves to the next destination, and the query follows.
        state = DashboardReducer.reduce(state, .tab).0
        #expect(state.pendingEventsQuery.destination == "warehouse")
        #expect(DashboardReducer.reduce(state, .character("e")).0.view == .main, "e closes it")
        #expect(DashboardReducer.reduce(state, .escape).0.view == .main, "so does Esc")
        // With no store to read, it says so.
        var unavailable = Fixtures.demoState()
        unavailable = DashboardReducer.reduce(unavailable, .character("e")).0
        unavailable.pendingEvents.isUnavailable = true
        #expect(DashboardRenderer.render(snapshot: Fixtures.steady(), state: unavailable, size: (80, 24)).text.contains("not available"))
    }

    @Test func policyPromptShowsParseError() throws {
        var state = Fixtures.demoState()
        for key in "pcount fifty" { state = DashboardReducer.reduce(state, .character(key)).0 }
        state = DashboardReducer.reduce(state, .enter).0
        #expect(state.prompt?.error != nil)
        try expectGolden("policy-prompt-error-80x24", Fixtures.steady(), state, 80, 24)
    }

    @Test func remoteConfig() throws {
        try expectGolden("remote-config-80x24", Fixtures.remoteConfig(), Fixtures.demoState(), 80, 24)
    }

    @Test func remoteConfigPollsFailing() throws {
        try expectGolden("remote-config-failing-80x24", Fixtures.remoteConfigFailing(), Fixtures.demoState(), 80, 24)
        try expectGolden("remote-config-failing-80x24.styles", Fixtures.remoteConfigFailing(), Fixtures.demoState(), 80, 24, styles: true)
    }

    @Test func minimumSize() throws {
        try expectGolden("minimum-40x10", Fixtures.outageWithRetries(), Fixtures.demoState(), 40, 10)
    }

    @Test func tooSmall() throws {
        try expectGolden("too-small-39x9", Fixtures.steady(), Fixtures.demoState(), 39, 9)
    }
}

/// Compares a render with `Golden/NAME.txt` (rewrites it with `BEACON_UPDATE_GOLDEN=1`).
func expectGolden(
    _ name: String, _ snapshot: EngineSnapshot, _ state: DashboardState, _ width: Int, _ height: Int,
    styles: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let grid = DashboardRenderer.render(snapshot: snapshot, state: state, size: (width: width, height: height))
    #expect(grid.width == width && grid.height == height, sourceLocation: sourceLocation)
    try compareGolden(name, (styles ? grid.styleText : grid.text) + "\n", sourceLocation: sourceLocation)
}

/// Compares `actual` with `Golden/NAME.txt` (rewrites it with `BEACON_UPDATE_GOLDEN=1`).
func compareGolden(_ name: String, _ actual: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden").appendingPathComponent(name + ".txt")
    if ProcessInfo.processInfo.environment["BEACON_UPDATE_GOLDEN"] == "1" {
        try actual.write(to: url, atomically: true, encoding: .utf8)
        return
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    #expect(actual == expected, "\(name) differs from Golden/\(name).txt:\n\(GoldenDiff.describe(expected: expected, actual: actual))",
            sourceLocation: sourceLocation)
}

enum GoldenDiff {
    /// The first lines that differ, expected above actual.
    static func describe(expected: String, actual: String) -> String {
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var report: [String] = []
        for index in 0..<max(expectedLines.count, actualLines.count) where report.count < 12 {
            let want = index < expectedLines.count ? String(expectedLines[index]) : "<none>"
            let got = index < actualLines.count ? String(actualLines[index]) : "<none>"
            if want != got { report += ["line \(index + 1) expected: \(want)", "line \(index + 1) actual:   \(got)"] }
        }
        return report.joined(separator: "\n")
    }
}

extension CellGrid {
    /// One letter per cell for its style (n normal, d dim, b bold, o ok, w warn, e error,
    /// a accent, i inverse), so style regressions show up in golden diffs too.
    var styleText: String {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width where !self[x, y].isContinuation {
                switch self[x, y].style {
                case .normal: line.append("n")
                case .dim: line.append("d")
                case .bold: line.append("b")
                case .ok: line.append("o")
                case .warn: line.append("w")
                case .error: line.append("e")
                case .accent: line.append("a")
                case .inverse: line.append("i")
                }
            }
            return line
        }.joined(separator: "\n")
    }
}

import BeaconSimulation
import Testing

/// Renders of fixed timelines compared with committed SVG and text under `Golden/`.
@Suite struct ChartGoldenTests {
    static let cases: [(name: String, timeline: SimulationTimeline)] = [
        ("chart-offline-burst", ChartFixtures.offlineBurst()),
        ("chart-flaky-collector", ChartFixtures.flakyCollector()),
        ("chart-kill-restart", ChartFixtures.killRestart()),
        ("chart-empty", ChartFixtures.empty()),
    ]

    @Test(arguments: cases.map(\.name))
    func svg(_ name: String) throws {
        let timeline = try #require(Self.cases.first { $0.name == name }).timeline
        try ChartGolden.expect(SimulationChart.svg(timeline, title: name), matches: name + ".svg")
    }

    @Test(arguments: cases.map(\.name))
    func terminal(_ name: String) throws {
        let timeline = try #require(Self.cases.first { $0.name == name }).timeline
        try ChartGolden.expect(Self.text(SimulationChart.terminal(timeline)), matches: name + ".txt")
    }

    @Test func terminalASCII() throws {
        let lines = SimulationChart.terminal(ChartFixtures.killRestart(), unicode: false)
        try ChartGolden.expect(Self.text(lines), matches: "chart-kill-restart-ascii.txt")
    }

    @Test func terminalSmallest() throws {
        let lines = SimulationChart.terminal(ChartFixtures.offlineBurst(), width: 40, height: 6)
        try ChartGolden.expect(Self.text(lines), matches: "chart-offline-burst-40x6.txt")
    }

    @Test func terminalWide() throws {
        let lines = SimulationChart.terminal(ChartFixtures.offlineBurst(), width: 120, height: 24)
        try ChartGolden.expect(Self.text(lines), matches: "chart-offline-burst-120x24.txt")
    }

    @Test func goldenDifferenceNamesTheFirstDifferingLine() {
        let difference = ChartGolden.firstDifference(expected: "a\nb\nc\n", actual: "a\nB\nc\n")
        #expect(difference == "line 2 expected: b\nline 2 actual:   B")
        #expect(ChartGolden.firstDifference(expected: "same", actual: "same") == nil)
    }

    static func text(_ lines: [String]) -> String {
        lines.joined(separator: "\n") + "\n"
    }
}

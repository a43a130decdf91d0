import BeaconSimulation
import Testing

/// The terminal chart's shape (every line exactly `width` characters, `height` lines) on
/// every fixture and size, and what its cells say.
@Suite struct TerminalChartTests {
    static let timelines: [SimulationTimeline] = [
        ChartFixtures.offlineBurst(), ChartFixtures.flakyCollector(), ChartFixtures.killRestart(),
        ChartFixtures.empty(), ChartFixtures.hostile(), ChartFixtures.oneSample(), ChartFixtures.allUnknown(),
        ChartFixtures.destinations(),
    ]

    /// Two or more destinations: each its digit over the bars where it has events pending,
    /// named on a legend line of its own; one destination (the total) draws none.
    @Test func eachDestinationIsADigitOverTheBarsAndNamedInTheLegend() {
        let lines = SimulationChart.terminal(ChartFixtures.destinations(), width: 78, height: 14, unicode: true)
        #expect(lines.count == 14 && lines.allSatisfy { $0.count == 78 })
        let legend = lines[13]
        #expect(legend.hasPrefix("pending:  1 <warehouse & co>  2 api  3 backup  4 late"), "\(legend)")
        // The plot right of the y-axis (its labels have digits of their own).
        let columns = lines[0..<10].map { Array($0.drop { $0 != "│" && $0 != "┤" }.dropFirst()) }
        let plot = columns.map { String($0) }.joined(separator: "\n")
        // The warehouse's backlog outlasts the others: its digit is drawn right of every 3.
        func lastColumn(of digit: Character) -> Int { columns.compactMap { $0.lastIndex(of: digit) }.max() ?? -1 }
        #expect(lastColumn(of: "1") > lastColumn(of: "3") && lastColumn(of: "3") > lastColumn(of: "2"), "\(plot)")
        #expect(!plot.contains("4"), "a destination with nothing pending (-5 drawn as 0) draws nothing")
        var single = ChartFixtures.destinations()
        for index in single.samples.indices { single.samples[index].destinations = ["main": 3] }
        let one = SimulationChart.terminal(single, width: 78, height: 14, unicode: true)
        #expect(!one.joined().contains("pending:"), "one destination is the total: no line of its own")
    }

    @Test(arguments: [(40, 6), (78, 14), (41, 7), (100, 20), (400, 100), (133, 37)])
    func everyLineHasExactlyWidthCharacters(_ width: Int, _ height: Int) {
        for (index, timeline) in Self.timelines.enumerated() {
            for unicode in [true, false] {
                let lines = SimulationChart.terminal(timeline, width: width, height: height, unicode: unicode)
                #expect(lines.count == height, "timeline \(index)")
                for (number, line) in lines.enumerated() {
                    #expect(line.count == width, "timeline \(index) line \(number): \(line)")
                }
            }
        }
    }

    @Test(arguments: [(0, 0, 40, 6), (-5, 3, 40, 6), (39, 5, 40, 6), (401, 101, 400, 100), (.max, .max, 400, 100), (.min, .min, 40, 6)])
    func sizesOutsideTheRangeAreClamped(_ width: Int, _ height: Int, _ expectedWidth: Int, _ expectedHeight: Int) {
        let lines = SimulationChart.terminal(ChartFixtures.killRestart(), width: width, height: height)
        #expect(lines.count == expectedHeight)
        #expect(lines.allSatisfy { $0.count == expectedWidth })
    }

    @Test func unknownDepthIsAQuestionMarkOnTheBaselineNotZero() {
        let lines = SimulationChart.terminal(ChartFixtures.killRestart())
        let baseline = lines[lines.count - 4]
        #expect(baseline.contains("???????"))
        #expect(lines[lines.count - 5].contains("╎"), "kill -9 mark above the gap")
        let unknownOnly = SimulationChart.terminal(ChartFixtures.allUnknown())
        #expect(unknownOnly[unknownOnly.count - 4].contains("?"))
        #expect(!unknownOnly.joined().contains("█"))
        #expect(unknownOnly.last?.hasSuffix("max depth ?") == true)
    }

    @Test func stepsAreCodedShadedAndListedInOrder() throws {
        let lines = SimulationChart.terminal(ChartFixtures.offlineBurst())
        let legend = try #require(lines.last)
        #expect(legend.hasPrefix("A steady 200/s  B░ offline 20 s  C recovery  D· drain"))
        #expect(legend.hasSuffix("max depth 6,000"))
        #expect(lines[0].contains("A") && lines[0].contains("B░") && lines[0].contains("D·"))
        #expect(lines[lines.count - 3].filter { $0 == "┴" }.count >= 4, "step boundaries on the x-axis line")
    }

    @Test func asciiModeUsesOnlyASCII() {
        for timeline in [ChartFixtures.offlineBurst(), ChartFixtures.killRestart(), ChartFixtures.flakyCollector()] {
            let text = SimulationChart.terminal(timeline, unicode: false).joined()
            #expect(text.unicodeScalars.allSatisfy { $0.isASCII }, "\(text)")
            #expect(text.contains("#"))
        }
    }

    @Test func hostileNamesCannotBreakLines() {
        let lines = SimulationChart.terminal(ChartFixtures.hostile(), width: 120, height: 12)
        for line in lines {
            #expect(!line.contains("\n") && !line.contains("\t") && !line.contains("\u{0}"))
            #expect(line.count == 120)
        }
    }

    @Test func aLoneSpikeShowsAtFullHeight() {
        var samples = (0..<100_000).map { SimulationTimeline.Sample(time: Double($0) / 100, depth: 10, trackedPerSecond: 1, deliveredPerSecond: 1) }
        samples[54_321].depth = 1_000_000
        let lines = SimulationChart.terminal(SimulationTimeline(samples: samples, steps: [], marks: []))
        #expect(lines[0].contains("█"), "the one deep sample reaches the top row")
        #expect(lines.last?.hasSuffix("max depth 1,000,000") == true)
    }
}

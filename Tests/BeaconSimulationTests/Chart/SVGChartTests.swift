import BeaconSimulation
import Foundation
import Testing

/// The SVG document: escaping, robustness on bad values, gaps and downsampling.
@Suite struct SVGChartTests {
    @Test func hostileTextIsEscapedAndForbiddenCharactersDropped() {
        let svg = SimulationChart.svg(ChartFixtures.hostile(), title: "<script>&\"'\u{0}\u{1B}[31m")
        #expect(!svg.contains("<script"))
        #expect(svg.contains("&lt;script&gt;&amp;&quot;&apos;"))
        #expect(!svg.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(!svg.unicodeScalars.contains { $0.value == 0xFFFE || $0.value == 0xFFFF })
        let emoji = SimulationChart.svg(ChartFixtures.offlineBurst(), title: "🚀 burst 👩‍👩‍👧 \u{301}")
        #expect(emoji.contains(">🚀 burst 👩‍👩‍👧 \u{301}</text>"))
    }

    @Test func longNamesAreTruncatedToTheirBand() throws {
        let name = String(repeating: "x", count: 500)
        let timeline = SimulationTimeline(
            samples: [.init(time: 0, depth: 1, trackedPerSecond: 1, deliveredPerSecond: 1)],
            steps: [.init(name: name, start: 0, end: 10, condition: .offline), .init(name: "b", start: 10, end: 100, condition: .healthy)],
            marks: []
        )
        let svg = SimulationChart.svg(timeline, title: name)
        let label = try #require(svg.split(separator: "\n").first { $0.contains("xxxxx…</text>") && $0.contains(#"font-size="11""#) })
        let shown = label.split(separator: ">")[1].prefix { $0 == "x" }.count
        // The band is 83.2 px: 77.2 px of text at 6.6 px a character is 11 characters, one the ellipsis.
        #expect(shown == 10)
        #expect(svg.contains("<title>\(name)</title>"), "the document title keeps the whole name")
    }

    static let awkward: [String: SimulationTimeline] = [
        "hostile": ChartFixtures.hostile(), "empty": ChartFixtures.empty(), "one sample": ChartFixtures.oneSample(),
        "all unknown": ChartFixtures.allUnknown(), "zero duration": ChartFixtures.zeroDuration(),
    ]

    @Test(arguments: awkward.keys.sorted())
    func badValuesNeverPrintNotANumber(_ name: String) throws {
        let timeline = try #require(Self.awkward[name])
        for (width, height) in [(960, 400), (0, 0), (-1, .max), (.max, .min), (241, 181)] {
            let svg = SimulationChart.svg(timeline, title: "t", width: width, height: height)
            let lowered = svg.lowercased()
            #expect(!lowered.contains("nan") && !lowered.contains("inf"))
            #expect(svg.hasSuffix("</svg>\n"))
            let outOfRange = Self.numbers(in: svg).filter { !$0.isFinite || abs($0) > 20_000 }
            #expect(outOfRange.isEmpty, "\(outOfRange.prefix(5))")
        }
    }

    @Test func numbersHaveAtMostOneDecimal() {
        let svg = SimulationChart.svg(ChartFixtures.offlineBurst(), title: "t", width: 977, height: 413)
        let attributes = try? NSRegularExpression(pattern: #"="(-?[0-9.]+)""#)
        let range = NSRange(svg.startIndex..., in: svg)
        let values = attributes?.matches(in: svg, range: range).compactMap { Range($0.range(at: 1), in: svg).map { svg[$0] } } ?? []
        #expect(!values.isEmpty)
        for value in values {
            #expect((value.split(separator: ".").dropFirst().first?.count ?? 0) <= 1, "\(value)")
        }
    }

    @Test func unknownDepthBreaksTheAreaInsteadOfDrawingZero() {
        let svg = SimulationChart.svg(ChartFixtures.killRestart(), title: "t")
        let depthLines = svg.split(separator: "\n").filter { $0.hasPrefix("<polyline") && $0.contains("#4c78a8") }
        #expect(depthLines.count == 2, "one run before kill -9, one after")
        #expect(svg.contains(#"stroke-dasharray="4 3""#), "marks are dashed lines")
        #expect(svg.contains(">kill -9</text>"))
    }

    @Test func hundredThousandSamplesKeepAtMostTwoPointsPerColumnAndTheSpike() throws {
        var samples = (0..<100_000).map {
            SimulationTimeline.Sample(time: Double($0) / 100, depth: $0 % 7, trackedPerSecond: Double($0 % 13), deliveredPerSecond: 5)
        }
        samples[77_777].depth = 1_000_000
        let svg = SimulationChart.svg(SimulationTimeline(samples: samples, steps: [], marks: []), title: "big")
        let depthLine = try #require(svg.split(separator: "\n").first { $0.hasPrefix("<polyline") && $0.contains("#4c78a8") })
        let points = depthLine.split(separator: "\"")[1].split(separator: " ")
        #expect(points.count <= 2 * 832, "plot is 832 px wide")
        #expect(points.contains { $0.hasSuffix(",44") }, "the spike reaches the top of the plot")
        #expect(svg.contains(">1M</text>"))
    }

    @Test func longRunsUseMinutesOnTheTimeAxis() {
        let svg = SimulationChart.svg(ChartFixtures.flakyCollector(), title: "t")
        #expect(svg.contains(">1:00</text>") && svg.contains(">time (m:ss)</text>"))
        let short = SimulationChart.svg(ChartFixtures.killRestart(), title: "t")
        #expect(short.contains(">30s</text>") && short.contains(">time (s)</text>"))
    }

    /// Every number in the document's attribute values (coordinates, sizes; colors left out).
    static func numbers(in svg: String) -> [Double] {
        guard let attribute = try? NSRegularExpression(pattern: ##"="([^"#][^"]*)""##),
              let number = try? NSRegularExpression(pattern: #"-?[0-9]+(\.[0-9]+)?"#) else { return [] }
        let values = attribute.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).compactMap {
            Range($0.range(at: 1), in: svg).map { String(svg[$0]) }
        }
        return values.flatMap { value in
            number.matches(in: value, range: NSRange(value.startIndex..., in: value)).compactMap {
                Range($0.range, in: value).flatMap { Double(value[$0]) }
            }
        }
    }

    /// A dashed line per destination on the depth axis, its name (escaped) in the legend;
    /// a sample without destinations breaks the lines instead of dropping them to zero.
    @Test func eachDestinationIsADashedLineNamedInTheLegend() {
        let svg = SimulationChart.svg(ChartFixtures.destinations(), title: "destinations", width: 1_400, height: 400)
        for name in ["pending api", "pending backup", "pending &lt;warehouse &amp; co&gt;", "pending late"] {
            #expect(svg.contains(">\(name)</text>"), "\(name)")
        }
        let dashed = svg.components(separatedBy: "\n").filter { $0.hasPrefix("<polyline") && $0.contains(#"stroke-dasharray="6 2""#) }
        #expect(dashed.count == 6, "three destinations, each broken once by the unknown sample: \(dashed.count)")
        #expect(!svg.contains("warehouse & co"), "escaped")
        let plain = SimulationChart.svg(ChartFixtures.offlineBurst(), title: "one")
        #expect(!plain.contains("stroke-dasharray=\"6 2\""), "no destinations: no lines")
    }
}

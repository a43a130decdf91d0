@testable import BeaconSimulation
import Testing

/// Number formatting, clamped conversion, ticks and text cleaning behind the chart.
@Suite struct ChartFormatTests {
    @Test(arguments: [
        (0.0, "0"), (950, "950"), (999.9, "999.9"), (1_234, "1.2k"), (45_000, "45k"), (999_999, "1M"),
        (1_500_000, "1.5M"), (123_456_789, "123M"), (Double(Int.max), "9.2E"), (-2_500, "-2.5k"), (0.04, "0"),
        (1e21, "1e21"), (.nan, "0"), (.infinity, "0"), (-.infinity, "0"),
    ])
    func compact(_ value: Double, _ expected: String) {
        #expect(ChartFormat.compact(value) == expected)
    }

    @Test func decimalKeepsAtMostOneDigitAfterThePoint() {
        #expect(ChartFormat.decimal(12.25) == "12.3")
        #expect(ChartFormat.decimal(12.04) == "12")
        #expect(ChartFormat.decimal(-0.04) == "0")
        #expect(ChartFormat.decimal(-3.5) == "-3.5")
        #expect(ChartFormat.decimal(.nan) == "0")
        #expect(ChartFormat.decimal(1e300) == "100000000000000")
    }

    @Test func clampedIntNeverTraps() {
        #expect(ChartFormat.clampedInt(.nan, in: 0...10) == 0)
        #expect(ChartFormat.clampedInt(.infinity, in: 0...10) == 10)
        #expect(ChartFormat.clampedInt(-.infinity, in: 0...10) == 0)
        #expect(ChartFormat.clampedInt(1e300, in: 0...Int.max) == Int.max)
        #expect(ChartFormat.clampedInt(Double(Int.max), in: Int.min...Int.max) == Int.max)
        #expect(ChartFormat.clampedInt(7.9, in: 0...10) == 7)
    }

    @Test func groupedAndTimeLabels() {
        #expect(ChartFormat.grouped(4_012) == "4,012")
        #expect(ChartFormat.grouped(999) == "999")
        #expect(ChartFormat.grouped(1_000_000) == "1,000,000")
        #expect(ChartFormat.grouped(Int.max) == "9.2E")
        #expect(ChartFormat.time(125, minutes: true) == "2:05")
        #expect(ChartFormat.time(7.5, minutes: false) == "7.5s")
        #expect(ChartFormat.time(1e300, minutes: true) == "35791394:07")
    }

    @Test func niceTicksStepBy1_2Or5() {
        let depth = ChartTicks.values(upTo: 4_012, count: 5, integral: true)
        #expect(depth.maximum == 5_000 && depth.values == [0, 1_000, 2_000, 3_000, 4_000, 5_000])
        #expect(ChartTicks.values(upTo: 0, count: 5, integral: true).values == [0, 1])
        #expect(ChartTicks.values(upTo: 0.6, count: 3, integral: false).values.map(ChartFormat.decimal) == ["0", "0.2", "0.4", "0.6"])
        #expect(ChartTicks.values(upTo: .nan, count: 5, integral: false).maximum == 1)
        #expect(ChartTicks.values(upTo: 9.3e18, count: 5, integral: true).maximum == 1e19)
        let time = ChartTicks.time(duration: 240, count: 8)
        #expect(time.usesMinutes && time.values == [0, 30, 60, 90, 120, 150, 180, 210, 240])
        #expect(ChartTicks.time(duration: 70, count: 7).values == [0, 10, 20, 30, 40, 50, 60, 70])
        #expect(ChartTicks.time(duration: 1e9, count: 8).values.count <= 9)
    }

    @Test func textIsMadeSafe() {
        #expect(ChartText.xmlSafe("a\u{0}b\u{1}\tc\nd\u{FFFE}\u{85}") == "ab c d")
        #expect(ChartText.xmlEscaped("<a href='x'>&\"") == "&lt;a href=&apos;x&apos;&gt;&amp;&quot;")
        #expect(ChartText.truncated("abcdef", to: 4, ellipsis: "…") == "abc…")
        #expect(ChartText.truncated("abcdef", to: 1, ellipsis: "…") == "")
        #expect(ChartText.truncated("abc", to: 3, ellipsis: "…") == "abc")
        #expect(ChartText.terminalSafe("\u{301}a\n\u{200D}b🇺") == "?a ?b?")
        #expect(ChartText.terminalSafe("🇺🇸 ok 👍🏽") == "🇺🇸 ok 👍🏽")
    }
}

@testable import BeaconDashboard
import Testing

@Suite struct FormatTests {
    @Test func counts() {
        #expect(Format.count(0) == "0")
        #expect(Format.count(999) == "999")
        #expect(Format.count(1_000) == "1,000")
        #expect(Format.count(1_234_567) == "1,234,567")
        #expect(Format.count(-12_345) == "-12,345")
    }

    @Test func bytes() {
        #expect(Format.bytes(512) == "512 B")
        #expect(Format.bytes(12_345) == "12.3 KB")
        #expect(Format.bytes(456_000) == "456 KB")
        #expect(Format.bytes(999_999) == "1.0 MB")
        #expect(Format.bytes(3_400_000_000) == "3.4 GB")
    }

    @Test func durations() {
        #expect(Format.duration(.microseconds(400)) == "0.4 ms")
        #expect(Format.duration(.milliseconds(12)) == "12 ms")
        #expect(Format.duration(.milliseconds(1_250)) == "1.25 s")
        #expect(Format.duration(.milliseconds(12_500)) == "12.5 s")
        #expect(Format.duration(.seconds(125)) == "2m05s")
        #expect(Format.duration(.seconds(3 * 3600 + 120)) == "3h02m")
        #expect(Format.duration(.milliseconds(-5)) == "0 ms")
    }

    @Test func timesOfDayAgesAndIntervals() {
        #expect(Format.timeOfDay(millisecondsSince1970: 1_763_769_600_000) == "00:00:00")
        #expect(Format.timeOfDay(millisecondsSince1970: 1_763_769_600_000 + 45_296_999) == "12:34:56")
        #expect(Format.timeOfDay(millisecondsSince1970: -1_000) == "23:59:59")
        #expect(Format.age(milliseconds: -20) == "0s")
        #expect(Format.age(milliseconds: 4_999) == "4s")
        #expect(Format.age(milliseconds: 125_000) == "2m05s")
        #expect(Format.age(milliseconds: (3 * 3600 + 120) * 1000) == "3h02m")
        #expect(Format.age(milliseconds: (2 * 86_400 + 7 * 3600) * 1000) == "2d07h")
        #expect(Format.interval(.milliseconds(300)) == "300ms")
        #expect(Format.interval(.seconds(5)) == "5s")
        #expect(Format.interval(.milliseconds(1_500)) == "1.5s")
        #expect(Format.interval(.seconds(120)) == "2m")
        #expect(Format.interval(.seconds(150)) == "2m30s")
        #expect(Format.interval(.seconds(3600)) == "1h")
        #expect(Format.interval(.seconds(5400)) == "1h30m")
    }

    @Test func rates() {
        #expect(Format.rate(0) == "0/s")
        #expect(Format.rate(.nan) == "0/s")
        #expect(Format.rate(2.54) == "2.5/s")
        #expect(Format.rate(120.4) == "120/s")
        #expect(Format.rate(12_345) == "12.3k/s")
        #expect(Format.rate(2_500_000) == "2.5M/s")
        // From outside (an engine's status, a damaged store): never a trap.
        for rate in [1e300, .greatestFiniteMagnitude, 9.3e18, 1e9, .infinity, -1e300] {
            let text = Format.rate(rate)
            #expect(!text.isEmpty && DisplayWidth.of(text) <= 8, "\(rate): \(text)")
        }
        #expect(Format.rate(1e300) == ">1G/s")
        #expect(Format.fixed(1e300, 1).hasPrefix("922337203685477580"), "saturated, not trapped")
        #expect(Format.fixed(-.greatestFiniteMagnitude, 0).hasPrefix("-"))
        #expect(Format.percent(.nan) == "?" && Format.percent(7) == "100 %" && Format.percent(-1) == "0 %")
    }
}

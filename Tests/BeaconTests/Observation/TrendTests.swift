import BeaconTesting
import BeaconWire
import Testing

@testable import Beacon

/// Issue 42, build 7: the last ten minutes, bounded, derived once by the observer and
/// carried to an attached console by the status report.
@Suite("The last ten minutes: depth and rates for the sparklines")
struct TrendTests {
    @Test("Ten ticks make a point: the deepest depth, the mean rates; sixty points at most")
    func pointsFoldTicks() {
        var trend = Trend(ticksPerPoint: 10)
        for tick in 0..<9 { trend.add(depth: tick, rateIn: 10, rateOut: Double(tick)) }
        #expect(trend.points.isEmpty, "a point waits for its tenth tick")
        trend.add(depth: 3, rateIn: 20, rateOut: 9)
        #expect(trend.points == [Trend.Point(depth: 8, rateIn: 11, rateOut: 4.5)])
        for tick in 0..<(10 * 200) { trend.add(depth: tick, rateIn: 1, rateOut: 1) }
        #expect(trend.points.count == Trend.capacity, "bounded however long it runs")
        #expect(trend.points.last?.depth == 10 * 200 - 1, "the newest last")
    }

    @Test("Values from outside are made sane", arguments: [Double.nan, .infinity, -.infinity, -1, 1e300])
    func saneValues(_ rate: Double) {
        let point = Trend.Point(depth: -10, rateIn: rate, rateOut: rate)
        #expect(point.depth == 0)
        #expect(point.rateIn.isFinite && point.rateIn >= 0 && point.rateOut.isFinite && point.rateOut >= 0)
        var trend = Trend(ticksPerPoint: 1)
        trend.add(depth: .max, rateIn: rate, rateOut: rate)
        #expect(trend.points.first?.depth == .max)
        let decoded = Trend(points: Array(repeating: point, count: 10_000))
        #expect(decoded.points.count == Trend.capacity)
    }

    @Test("The observer adds a point each ten ticks, and the status report carries the same points")
    func observerAndReportAgree() async throws {
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(events: 7), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        for _ in 0..<25 { await observer.tick() }
        let snapshot = await observer.snapshot
        #expect(snapshot.trend.count == 2, "25 one-second ticks: two ten-second points")
        #expect(snapshot.trend.allSatisfy { $0.depth == 7 })
        let points = snapshot.trend.map(EngineStatusReport.TrendPoint.init)
        #expect(points.map(\.point) == snapshot.trend, "what ctl status and an attached console read")
    }
}

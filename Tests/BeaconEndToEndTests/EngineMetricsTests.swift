import Beacon
import BeaconCollector
import BeaconTesting
import BeaconWire
import Foundation
import Logging
import MetricsTestKit
import Testing

/// ``EngineMetrics`` over a real engine and real collectors on 127.0.0.1: per destination,
/// the counters add up to what was tracked.
@Suite("Engine metrics end to end", .timeLimit(.minutes(2)))
struct EngineMetricsTests {
    @Test("delivered + dead-lettered + pending = tracked, per destination; retries, latency and age are reported")
    func countersAddUp() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var strict = CollectorConfiguration()
        strict.limits.maxEventBytes = 600  // the padded events are refused for good: dead letters
        var unavailable = CollectorConfiguration()
        unavailable.faultPlan.down = true  // 503 to every batch: retried, pending
        try await withCollector(strict) { [unavailable] collector, port in
            try await withCollector(unavailable) { _, downPort in
                var logger = Logger(label: "beacon.metrics.test")
                logger.logLevel = .critical
                let queue = try SQLiteEventQueue(path: directory + "/queue.sqlite", logger: logger)
                let engine = BeaconEngine(
                    queue: queue,
                    destinations: [
                        Destination(name: "main", sender: HTTPSender(configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: nil))),
                        Destination(name: "down", sender: HTTPSender(configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(downPort)", writeKey: nil))),
                    ],
                    settings: EngineSettings(policy: .any([.count(50), .interval(.milliseconds(50))]), batchSize: 50),
                    retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(100)), logger: logger)
                let metrics = TestMetrics()
                let reporter = engine.metricsReporter(factory: metrics, logger: logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await engine.run() }
                    group.addTask { await reporter.run() }
                    let padding = String(repeating: "p", count: 700)
                    for index in 0..<300 {
                        let properties: [String: JSONValue] = index % 10 == 0 ? ["pad": .string(padding)] : ["index": .int(index)]
                        try engine.tracker.track("Metrics", properties: properties, userId: "u")
                    }
                    let tracked = 300
                    func counter(_ name: String, _ destination: String) throws -> Int64 {
                        try metrics.expectCounter("beacon_engine_\(name)", [("destination", destination)]).totalValue
                    }
                    func gauge(_ name: String, _ destination: String) throws -> Double {
                        try metrics.expectGauge("beacon_engine_\(name)", [("destination", destination)]).lastValue ?? -1
                    }
                    let settled = try await eventuallyTolerating {
                        try counter("delivered_events_total", "main") == 270 && counter("dead_lettered_events_total", "main") == 30
                            && gauge("pending_events", "main") == 0
                    }
                    #expect(settled, "main: delivered \((try? counter("delivered_events_total", "main")) ?? -1)")
                    let main = Double(try counter("delivered_events_total", "main") + counter("dead_lettered_events_total", "main"))
                        + (try gauge("pending_events", "main"))
                    #expect(main == Double(tracked))
                    #expect(try await collector.storedCount() == 270)

                    let retried = try await eventuallyTolerating {
                        try counter("retried_batches_total", "down") >= 2 && gauge("oldest_pending_age_seconds", "down") > 0
                    }
                    #expect(retried)
                    let down = Double(try counter("delivered_events_total", "down") + counter("dead_lettered_events_total", "down"))
                        + (try gauge("pending_events", "down"))
                    #expect(down == Double(tracked))
                    #expect(try gauge("pending_events", "down") == Double(tracked))
                    // The observer reads ages on its tick: the first snapshot after main settled says 0.
                    #expect(try await eventuallyTolerating { try gauge("oldest_pending_age_seconds", "main") == 0 })
                    #expect(try counter("dropped_events_total", "main") == 0)
                    let latency = try metrics.expectTimer("beacon_engine_batch_duration_seconds", [("destination", "main")])
                    #expect(!latency.values.isEmpty && latency.values.allSatisfy { $0 > 0 })
                    // Refusals at the bound (the agent's ingest reports them): the observer's
                    // count, as ctl status gives it, reaches the counter; no refusal, no increment.
                    #expect(try metrics.expectCounter("beacon_engine_refused_events_total").totalValue == 0)
                    engine.observer.report(.refusedAtBound(refused: 7))
                    engine.observer.report(.refusedAtBound(refused: 5))
                    #expect(try await eventuallyTolerating {
                        try metrics.expectCounter("beacon_engine_refused_events_total").totalValue == 12
                    })
                    #expect(await engine.observer.snapshot.totals.refused == 12)
                    group.cancelAll()
                }
            }
        }
    }
}

/// ``eventually(within:every:_:)`` over a condition whose reads may fail while the engine
/// starts (a gauge not registered yet): a failing read counts as not yet; the last one's
/// error is thrown.
private func eventuallyTolerating(_ condition: () throws -> Bool) async throws -> Bool {
    if await eventually({ (try? condition()) == true }) { return true }
    return try condition()
}

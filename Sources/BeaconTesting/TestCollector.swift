import BeaconCollector
import Logging

/// Runs a real collector on 127.0.0.1 and a free port for the duration of `body`, with
/// its logging silenced, then stops it: the destination that engine tests send to.
///
/// ```swift
/// try await withCollector(CollectorConfiguration(writeKeys: ["k"])) { collector, port in
///     let sender = try HTTPSender(endpoint: "http://127.0.0.1:\(port)", writeKey: "k")
///     …
///     #expect(await collector.stats.stored == 10)
/// }
/// ```
public func withCollector<Value: Sendable>(
    _ configuration: CollectorConfiguration = CollectorConfiguration(),
    _ body: @Sendable (Collector, Int) async throws -> Value
) async throws -> Value {
    var logger = Logger(label: "beacon.collector.test")
    logger.logLevel = .critical
    let collector = try Collector(configuration: configuration, logger: logger)
    return try await collector.withRunning { port in try await body(collector, port) }
}

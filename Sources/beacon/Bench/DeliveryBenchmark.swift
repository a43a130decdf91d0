import Beacon
import BeaconCollector
import BeaconWire
import Foundation
import Logging

/// `beacon bench drain` and `beacon bench latency`: the engine, the HTTP sender and an
/// in-process collector on 127.0.0.1, all in this process (so on the same 2 cores).
struct DeliveryBenchmark {
    var directory: String
    /// The sender's gzip level.
    var gzipLevel = Gzip.defaultLevel
    var logger: Logger = {
        var logger = Logger(label: "beacon.bench")
        logger.logLevel = .critical
        return logger
    }()

    /// Drains a backlog of `events` to the collector at `batchSize`; returns events/s
    /// stored (the collector stores before it answers 2xx) and the bytes on the wire.
    func drain(
        events: Int, batchSize: Int, run: Int, gzip: Bool = true
    ) async throws -> (perSecond: Double, wireBytes: Int, cpuSeconds: Double, stages: DrainStages) {
        let path = "\(directory)/drain-\(run)-\(gzip).sqlite"
        defer { EnqueueBenchmark.remove(path) }
        let queue = TimedQueue(try SQLiteEventQueue(path: path, logger: logger))
        let filler = Tracker(queue: queue)
        for _ in 0..<events { try filler.track("Benchmark Event", properties: EnqueueBenchmark.properties) }
        await queue.waitForPendingWrites()
        return try await withCollector { collector, port in
            let sender = HTTPSender(
                configuration: try HTTPSenderConfiguration(
                    endpoint: "http://127.0.0.1:\(port)", writeKey: nil, gzip: gzip, gzipLevel: gzipLevel),
                logger: logger)
            let meter = WireMeter(sender)
            let engine = BeaconEngine(
                queue: queue, destination: Destination(sender: meter),
                settings: EngineSettings(policy: .manual, batchSize: batchSize, maxBatchBytes: 1_000_000), logger: logger)
            let (elapsed, cpu) = await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.run() }
                let cpuStart = ProcessCPU.seconds
                let start = ContinuousClock.now
                await engine.flush()
                _ = await engine.observer.firstSnapshot { $0.totals.delivered >= events }
                let elapsed = start.duration(to: .now)
                let cpu = ProcessCPU.seconds - cpuStart
                group.cancelAll()
                return (elapsed, cpu)
            }
            let stored = try await collector.storedCount()
            guard stored == events else { throw CLIError.runtime("drain benchmark: collector stored \(stored) of \(events)") }
            return (Double(events) / elapsed.inSeconds, meter.bytes, cpu, DrainStages(queue: queue, meter: meter))
        }
    }

    /// Time from the first `track` to the last of `events` stored, at `batchSize`, with
    /// the policy "count batchSize or 20 ms" (the tail of fewer than a batch goes on the clock).
    func firstToLast(
        events: Int, batchSize: Int, run: Int
    ) async throws -> (elapsed: Duration, cpuSeconds: Double, tracked: Duration, stages: DrainStages) {
        let path = "\(directory)/latency-\(run).sqlite"
        defer { EnqueueBenchmark.remove(path) }
        let queue = TimedQueue(try SQLiteEventQueue(path: path, logger: logger))
        return try await withCollector { collector, port in
            let sender = WireMeter(HTTPSender(
                configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: nil, gzipLevel: gzipLevel),
                logger: logger))
            let engine = BeaconEngine(
                queue: queue, destination: Destination(sender: sender),
                settings: EngineSettings(policy: .any([.count(batchSize), .interval(.milliseconds(20))]), batchSize: batchSize),
                logger: logger)
            let (elapsed, cpu, tracked) = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await engine.run() }
                let cpuStart = ProcessCPU.seconds
                let start = ContinuousClock.now
                for _ in 0..<events { try engine.tracker.track("Benchmark Event", properties: EnqueueBenchmark.properties) }
                let tracked = start.duration(to: .now)
                _ = await engine.observer.firstSnapshot { $0.totals.delivered >= events }
                let elapsed = start.duration(to: .now)
                let cpu = ProcessCPU.seconds - cpuStart
                group.cancelAll()
                return (elapsed, cpu, tracked)
            }
            let stored = try await collector.storedCount()
            guard stored == events else { throw CLIError.runtime("latency benchmark: collector stored \(stored) of \(events)") }
            return (elapsed, cpu, tracked, DrainStages(queue: queue, meter: sender))
        }
    }

    private func withCollector<Value: Sendable>(_ body: @Sendable (Collector, Int) async throws -> Value) async throws -> Value {
        let collector = try Collector(configuration: CollectorConfiguration(), logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do { try await collector.run() } catch is CancellationError { return }  // stopped at the end of the run
            }
            let port = try await collector.port
            let value = try await body(collector, port)
            group.cancelAll()
            return value
        }
    }
}

/// Median milliseconds per batch of each stage of a drain: reading the batch from the
/// store, the send (encoding, request and the collector's work), settling it.
struct DrainStages {
    var peekMilliseconds: Double
    var sendMilliseconds: Double
    var settleMilliseconds: Double

    /// The medians a timed queue and a metered sender recorded.
    init(queue: TimedQueue, meter: WireMeter) {
        self.init(
            peekMilliseconds: queue.peekTimer.medianMilliseconds, sendMilliseconds: meter.sendTimer.medianMilliseconds,
            settleMilliseconds: queue.settleTimer.medianMilliseconds)
    }

    init(peekMilliseconds: Double, sendMilliseconds: Double, settleMilliseconds: Double) {
        self.peekMilliseconds = peekMilliseconds
        self.sendMilliseconds = sendMilliseconds
        self.settleMilliseconds = settleMilliseconds
    }

    var json: JSONValue {
        ["peek": .double(round2(peekMilliseconds)), "send": .double(round2(sendMilliseconds)), "settle": .double(round2(settleMilliseconds))]
    }
    var text: String { "peek \(round2(peekMilliseconds)) ms, send \(round2(sendMilliseconds)) ms, settle \(round2(settleMilliseconds)) ms" }
}

/// Counts the bytes a sender put on the wire and times each send.
final class WireMeter: EventSender, @unchecked Sendable {
    // @unchecked: `total` is only touched under `lock`.
    private let inner: any EventSender
    private let lock = NSLock()
    private var total = 0

    init(_ inner: any EventSender) { self.inner = inner }

    var endpointDescription: String { inner.endpointDescription }
    var bytes: Int { lock.withLock { total } }

    let sendTimer = StageTimer()

    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { inner.prepare(batch) }

    func send(_ batch: OutgoingBatch) async -> SendResult {
        let start = ContinuousClock.now
        let result = await inner.send(batch)
        sendTimer.record(start)
        lock.withLock { total += result.wireBytes ?? 0 }
        return result
    }
}

import Beacon
import BeaconWire
import Foundation

/// Wraps an `HTTPSender` for the delivery benchmarks: encodes and gzips each batch the way
/// the sender's own `prepare` does, timing the two apart; keeps every request body in the
/// order sent (for the raw replay); counts the bytes on the wire; times each send.
final class WireMeter: EventSender, @unchecked Sendable {
    // @unchecked: the mutable fields are only touched under `lock`.
    private let inner: HTTPSender
    private let gzipLevel: Int?
    private let lock = NSLock()
    private var total = 0
    private var sent: [[UInt8]] = []

    let encodeTimer = StageTimer()
    let gzipTimer = StageTimer()
    let sendTimer = StageTimer()

    /// `gzipLevel` nil sends plain JSON (the sender must be configured the same way).
    init(_ inner: HTTPSender, gzipLevel: Int?) {
        self.inner = inner
        self.gzipLevel = gzipLevel
    }

    var endpointDescription: String { inner.endpointDescription }
    var bytes: Int { lock.withLock { total } }
    var bodies: [[UInt8]] { lock.withLock { sent } }

    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch {
        let start = ContinuousClock.now
        var json = batch.body(sentAt: .now())
        encodeTimer.record(start)
        var gzipped = false
        if let gzipLevel {
            let gzipStart = ContinuousClock.now
            do {
                json = try Gzip.compress(json, level: gzipLevel)
                gzipped = true
            } catch {
                gzipped = false  // as the sender does: the batch goes uncompressed
            }
            gzipTimer.record(gzipStart)
        }
        var prepared = batch
        prepared.preparedBody = PreparedBody(bytes: json, gzipped: gzipped)
        return prepared
    }

    func send(_ batch: OutgoingBatch) async -> SendResult {
        // The first batch of a drain is not prepared ahead: prepare it here, as the sender would.
        let prepared = batch.preparedBody == nil ? prepare(batch) : batch
        let start = ContinuousClock.now
        let result = await inner.send(prepared)
        sendTimer.record(start)
        lock.withLock {
            total += result.wireBytes ?? 0
            if let body = prepared.preparedBody?.bytes { sent.append(body) }
        }
        return result
    }
}

/// Median milliseconds per batch of each engine-side stage of a delivery run: reading
/// the batch from the store, encoding it, gzipping it, the request (as the sender sees it:
/// the collector's work and the HTTP exchange), settling it.
struct EngineStages {
    var peek: Double
    var encode: Double
    var gzip: Double
    var send: Double
    var settle: Double

    init(queue: TimedQueue, meter: WireMeter) {
        peek = queue.peekTimer.medianMilliseconds
        encode = meter.encodeTimer.medianMilliseconds
        gzip = meter.gzipTimer.medianMilliseconds
        send = meter.sendTimer.medianMilliseconds
        settle = queue.settleTimer.medianMilliseconds
    }

    init(medianOf runs: [EngineStages]) {
        peek = BenchmarkStatistics.median(runs.map(\.peek))
        encode = BenchmarkStatistics.median(runs.map(\.encode))
        gzip = BenchmarkStatistics.median(runs.map(\.gzip))
        send = BenchmarkStatistics.median(runs.map(\.send))
        settle = BenchmarkStatistics.median(runs.map(\.settle))
    }

    var json: JSONValue {
        [
            "peek": .double(round3(peek)), "encode": .double(round3(encode)), "gzip": .double(round3(gzip)),
            "send": .double(round3(send)), "settle": .double(round3(settle)),
        ]
    }

    var text: String {
        "peek \(round3(peek)), encode \(round3(encode)), gzip \(round3(gzip)), send \(round3(send)), settle \(round3(settle)) ms"
    }
}

func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

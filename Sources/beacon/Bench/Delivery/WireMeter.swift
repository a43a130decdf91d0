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
    private var firstStart: ContinuousClock.Instant?
    private var lastEnd: ContinuousClock.Instant?
    private var gaps: [Double] = []
    /// Sends under way now.
    private var inFlight = 0
    private var sendSeconds: [Double] = []

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
    /// When the first send started and the last one ended, and the sum of the sends' durations.
    var sendSpan: (first: ContinuousClock.Instant?, last: ContinuousClock.Instant?, total: Double) {
        lock.withLock { (firstStart, lastEnd, sendSeconds.reduce(0, +)) }
    }

    /// Median milliseconds from the end of one send to the start of the next while none
    /// was in flight: the engine's time per batch outside the request with one batch in
    /// flight; with several, the time between one wave's last answer and the next wave.
    var medianGapMilliseconds: Double {
        let values = lock.withLock { gaps }
        return values.isEmpty ? 0 : BenchmarkStatistics.median(values) * 1000
    }

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
        lock.withLock {
            if inFlight == 0, let lastEnd { gaps.append(lastEnd.duration(to: start).inSeconds) }
            if firstStart == nil { firstStart = start }
            inFlight += 1
        }
        let result = await inner.send(prepared)
        sendTimer.record(start)
        lock.withLock {
            let end = ContinuousClock.now
            sendSeconds.append(start.duration(to: end).inSeconds)
            lastEnd = end
            inFlight -= 1
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
    /// From the end of one send to the start of the next.
    var gap: Double

    init(queue: TimedQueue, meter: WireMeter) {
        peek = queue.peekTimer.medianMilliseconds
        encode = meter.encodeTimer.medianMilliseconds
        gzip = meter.gzipTimer.medianMilliseconds
        send = meter.sendTimer.medianMilliseconds
        settle = queue.settleTimer.medianMilliseconds
        gap = meter.medianGapMilliseconds
    }

    init(medianOf runs: [EngineStages]) {
        peek = BenchmarkStatistics.median(runs.map(\.peek))
        encode = BenchmarkStatistics.median(runs.map(\.encode))
        gzip = BenchmarkStatistics.median(runs.map(\.gzip))
        send = BenchmarkStatistics.median(runs.map(\.send))
        settle = BenchmarkStatistics.median(runs.map(\.settle))
        gap = BenchmarkStatistics.median(runs.map(\.gap))
    }

    var json: JSONValue {
        [
            "peek": .double(round3(peek)), "encode": .double(round3(encode)), "gzip": .double(round3(gzip)),
            "send": .double(round3(send)), "settle": .double(round3(settle)), "gapBetweenSends": .double(round3(gap)),
        ]
    }

    var text: String {
        "peek \(round3(peek)), encode \(round3(encode)), gzip \(round3(gzip)), send \(round3(send)), settle \(round3(settle)), gap between sends \(round3(gap)) ms"
    }
}

func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

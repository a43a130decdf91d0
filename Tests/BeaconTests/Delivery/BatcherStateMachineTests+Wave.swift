import BeaconTesting
import Testing

@testable import Beacon

/// Waves (`maxConcurrentRequests` above 1): which states start one, and what a wave's
/// results, in queue order, leave. Written out by hand, row by row.
extension BatcherStateMachineTests {
    @Test func nextBatchesStartAWaveOnlyWhereAReadWouldStart() {
        check([
            (Self.idle, Self.idle, .none),
            (Self.idleAfter7, Self.idleAfter7, .none),
            (Self.head, Self.readingHead, .readWave(.head, limit: 10, attempt: 1, batches: 4)),
            (Self.after7, Self.readingAfter7, .readWave(.after(7), limit: 10, attempt: 1, batches: 4)),
            (Self.ahead, Self.batch20, .send("ahead", limit: 10)),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.NextBatchAction.self) { $0.nextBatches(batchSize: 10, concurrency: 4) }
    }

    /// At 1 request at a time the machine is exactly the one-batch machine.
    @Test func nextBatchesAtOneIsNextBatch() {
        for state in Self.allStates {
            var waves = Self.machine(state)
            var single = Self.machine(state)
            #expect(waves.nextBatches(batchSize: 10, concurrency: 1) == single.nextBatch(batchSize: 10), "from \(state)")
            #expect(waves.state == single.state, "from \(state)")
        }
    }

    @Test func aSplitLimitOrAnIsolationSendsOneBatchAtATime() {
        var split = Self.machine(Self.head, splitLimit: 5)
        #expect(!split.allowsWave)
        #expect(split.nextBatches(batchSize: 10, concurrency: 4) == .read(.head, limit: 5, attempt: 1))
        var isolating = Self.machine(Self.head, streak: Machine.Streak(attempts: 3, since: Self.at(1), isolatingThrough: 20))
        #expect(!isolating.allowsWave)
        #expect(isolating.nextBatches(batchSize: 10, concurrency: 4) == .read(.head, limit: 10, attempt: 1))
        #expect(Self.machine(Self.head, streak: Machine.Streak(attempts: 3, since: Self.at(1))).allowsWave, "failures alone do not stop waves")
    }

    /// A wave of three batches (through 10, 20 and 30, 3 events each) read in state
    /// `batch(through: 30)`, with 2 failures before it: what each mix of results leaves.
    @Test func eachWaveOfResults() {
        let event = QueuedEvent(sequence: 18, messageId: "m18", name: "e", payload: Array("{}".utf8))
        let one = RejectedEvent(event: event, reason: "bad")
        let retry = DeliveryDecision.retry(after: .seconds(3), reason: "HTTP 503")
        typealias Result = Machine.WaveResult
        func sent(_ decision: DeliveryDecision, _ through: Int64) -> Result { .sent(decision, events: 3, through: through) }
        let rows: [(String, [Result], State, Machine.SendFinishedAction, failures: Int, lastError: String?, split: Int?, streak: Int?)] = [
            ("all delivered", [sent(.delivered, 10), sent(.delivered, 20), sent(.delivered, 30)],
             .draining(.after(30)), .settleThenReport(keepingLeases: true), 0, nil, nil, nil),
            ("the first retries, the later ones delivered", [sent(retry, 10), sent(.delivered, 20), sent(.delivered, 30)],
             .backingOff(until: Self.at(13)), .settleThenReport(keepingLeases: false), 3, "HTTP 503", nil, 3),
            ("the second retries after a delivery", [sent(.delivered, 10), sent(retry, 20), sent(.delivered, 30)],
             .backingOff(until: Self.at(13)), .settleThenReport(keepingLeases: false), 1, "HTTP 503", nil, 1),
            ("every batch retries: one failure", [sent(retry, 10), sent(retry, 20), sent(retry, 30)],
             .backingOff(until: Self.at(13)), .settleThenReport(keepingLeases: false), 3, "HTTP 503", nil, 3),
            ("413 in the middle", [sent(.delivered, 10), sent(.split(limit: 2), 20), sent(.delivered, 30)],
             .draining(.head), .settleThenReport(keepingLeases: false), 0, nil, 2, nil),
            ("401 in the middle", [sent(.delivered, 10), sent(.pause(reason: "HTTP 401"), 20), sent(.delivered, 30)],
             .paused(reason: "HTTP 401"), .settleThenReport(keepingLeases: false), 0, "HTTP 401", nil, nil),
            ("a partial dead letter first", [sent(.deadLetter([one]), 10), sent(.delivered, 20), sent(.delivered, 30)],
             .draining(.head), .settleThenReport(keepingLeases: false), 0, nil, nil, nil),
            ("a whole dead letter first", [sent(.deadLetter([one, one, one]), 10), sent(.delivered, 20), sent(.delivered, 30)],
             .draining(.after(30)), .settleThenReport(keepingLeases: true), 0, nil, nil, nil),
            ("filtered, then delivered", [.filtered(through: 10), sent(.delivered, 20), sent(.delivered, 30)],
             .draining(.after(30)), .settleThenReport(keepingLeases: true), 0, nil, nil, nil),
            ("filtered, then a retry", [.filtered(through: 10), sent(retry, 20), sent(.delivered, 30)],
             .backingOff(until: Self.at(13)), .settleThenReport(keepingLeases: false), 3, "HTTP 503", nil, 3),
            ("retries run out in the middle", [sent(.delivered, 10), sent(.isolate(limit: 2, reason: "gave up"), 20), sent(retry, 30)],
             .draining(.head), .settleThenReport(keepingLeases: false), 1, "gave up", 2, 1),
        ]
        for (name, results, expected, action, failures, lastError, split, streak) in rows {
            var machine = Self.machine(.batch(through: 30), failures: 2, streak: Machine.Streak(attempts: 2, since: Self.at(1)))
            let got = machine.waveFinished(results, now: Self.now, batchSize: 10)
            #expect(machine.state == expected, "\(name)")
            #expect(got == action, "\(name)")
            #expect(machine.failures == failures, "\(name)")
            #expect(machine.lastError == lastError, "\(name)")
            #expect(machine.splitLimit == split, "\(name)")
            #expect(machine.streak?.attempts == streak, "\(name)")
        }
    }

    @Test func anIsolationInAWaveMarksItsBatchAndStopsWaves() {
        var machine = Self.machine(.batch(through: 30))
        let got = machine.waveFinished(
            [.sent(.delivered, events: 3, through: 10), .sent(.isolate(limit: 2, reason: "gave up"), events: 3, through: 20),
             .sent(.delivered, events: 3, through: 30)],
            now: Self.now, batchSize: 10)
        #expect(got == .settleThenReport(keepingLeases: false))
        #expect(machine.streak?.isolatingThrough == 20, "the batch that gave up, not the wave's last")
        #expect(!machine.allowsWave)
        #expect(machine.nextBatches(batchSize: 10, concurrency: 4) == .read(.head, limit: 2, attempt: 2))
    }

    @Test func aWaveThatDoesNotMatchTheStateChangesNothing() {
        var wrongEnd = Self.machine(.batch(through: 30))
        #expect(wrongEnd.waveFinished([.sent(.delivered, events: 3, through: 20)], now: Self.now, batchSize: 10) == .none)
        #expect(wrongEnd.state == .batch(through: 30))
        var empty = Self.machine(.batch(through: 30))
        #expect(empty.waveFinished([], now: Self.now, batchSize: 10) == .none)
        #expect(empty.state == .batch(through: 30))
        for state in Self.allStates where state != Self.batch20 {
            var machine = Self.machine(state)
            #expect(machine.waveFinished([.sent(.delivered, events: 3, through: 20)], now: Self.now, batchSize: 10) == .none, "from \(state)")
            #expect(machine.state == state, "from \(state)")
        }
    }

    /// After a wave that failed, nothing leaves before the backoff ends; then the next
    /// wave starts from the head.
    @Test func theNextWaveWaitsForTheBackoff() {
        var machine = Self.machine(Self.head)
        #expect(machine.nextBatches(batchSize: 10, concurrency: 2) == .readWave(.head, limit: 10, attempt: 1, batches: 2))
        machine.batchRead(through: 20)
        let retry = DeliveryDecision.retry(after: .seconds(3), reason: "HTTP 503")
        _ = machine.waveFinished(
            [.sent(retry, events: 3, through: 10), .sent(retry, events: 3, through: 20)], now: Self.now, batchSize: 10)
        #expect(machine.settleScheduled() == .armTimer(Self.at(13), reporting: .backingOff(until: Self.at(13))))
        #expect(machine.wake(now: Self.at(12), settings: Self.online, wentOffline: false) == .armTimer(Self.at(13), reporting: nil))
        #expect(machine.nextBatches(batchSize: 10, concurrency: 2) == .none, "nothing leaves while backing off")
        #expect(machine.wake(now: Self.at(13), settings: Self.online, wentOffline: false) == .drain(reporting: nil))
        #expect(machine.nextBatches(batchSize: 10, concurrency: 2) == .readWave(.head, limit: 10, attempt: 2, batches: 2))
    }
}

/// Cutting one read into a wave's batches as reads one after another would cut it.
@Suite("Cutting a wave")
struct WaveCutTests {
    static func events(_ sizes: [Int]) -> [QueuedEvent] {
        sizes.enumerated().map { index, size in
            QueuedEvent(sequence: Int64(index + 1), messageId: "m\(index + 1)", name: "e", payload: Array(repeating: 0x20, count: size))
        }
    }

    static func cut(_ sizes: [Int], limit: Int, maxBytes: Int, batches: Int) -> [[Int64]] {
        Batcher<ManualClock>.cutWave(events(sizes), limit: limit, maxBytes: maxBytes, batches: batches).map { $0.map(\.sequence) }
    }

    @Test("by count, in queue order, at most the wave's batches")
    func byCount() {
        #expect(Self.cut(Array(repeating: 10, count: 10), limit: 3, maxBytes: 1_000, batches: 4) == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]])
        #expect(Self.cut(Array(repeating: 10, count: 10), limit: 3, maxBytes: 1_000, batches: 2) == [[1, 2, 3], [4, 5, 6]])
        #expect(Self.cut(Array(repeating: 10, count: 6), limit: 3, maxBytes: 1_000, batches: 4) == [[1, 2, 3], [4, 5, 6]])
    }

    @Test("by bytes: a batch ends before it would pass maxBytes; a larger event goes alone")
    func byBytes() {
        #expect(Self.cut([40, 40, 40, 40, 40], limit: 100, maxBytes: 100, batches: 4) == [[1, 2], [3, 4], [5]])
        #expect(Self.cut([10, 500, 10, 10], limit: 100, maxBytes: 100, batches: 4) == [[1], [2], [3, 4]])
        #expect(Self.cut([500], limit: 100, maxBytes: 100, batches: 2) == [[1]])
    }

    @Test("nothing read, nothing cut; a limit below one still moves one event a batch")
    func edges() {
        #expect(Self.cut([], limit: 3, maxBytes: 100, batches: 4).isEmpty)
        #expect(Self.cut([1, 1, 1], limit: 0, maxBytes: 100, batches: 2) == [[1], [2]])
    }
}

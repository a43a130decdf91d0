import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// Snapshots of a real SQLite store read through `StoreReader`, as `beacon monitor` builds them.
@Suite("Store monitor", .timeLimit(.minutes(1)))
struct StoreMonitorTests {
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }

    init() throws {
        store = try TemporaryStore("monitor-tests")
    }

    var path: String { directory + "/store.sqlite" }

    func track(_ count: Int, into queue: SQLiteEventQueue) async throws {
        let tracker = Tracker(queue: queue)
        for index in 0..<count { try tracker.track("Monitored", properties: ["index": .int(index)]) }
        await queue.waitForPendingWrites()
    }

    func settle(_ queue: SQLiteEventQueue, events: Int, outcome: BatchOutcome, milliseconds: Int, deadLetterReason: String? = nil) async throws {
        let head = try await queue.peek(limit: events, maxBytes: .max)
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: "default", startedAt: .now(), duration: .milliseconds(milliseconds),
            events: head.count, bytes: head.reduce(0) { $0 + $1.payload.count }, attempt: 1,
            status: outcome == .sent ? 200 : 400, outcome: outcome, error: deadLetterReason)
        let letters = deadLetterReason.map { reason in
            head.map { DeadLetter(event: $0, reason: reason, destination: "default", status: 400, failedAt: .now()) }
        } ?? []
        try await queue.settle(BatchSettlement(
            record: record, delivered: outcome == .sent ? head.map(\.sequence) : [], deadLetters: letters))
    }

    @Test func depthTotalsAndReadOnlyFlagComeFromTheStore() async throws {
        let queue = try SQLiteEventQueue(path: path)
        try await track(12, into: queue)
        var builder = StoreSnapshotBuilder(storePath: path)
        let snapshot = builder.snapshot(from: try await StoreReader(path: path).status(), elapsed: .zero)
        #expect(snapshot.isReadOnlyMonitor)
        #expect(snapshot.storePath == path)
        #expect(snapshot.depth == 12)
        #expect(snapshot.queuedBytes > 0)
        #expect(snapshot.totals.accepted == 12)
        #expect(snapshot.totals.delivered == 0)
        #expect(snapshot.depthHistory == [12])
        #expect(snapshot.rateIn == 0)
        #expect(snapshot.lastError == nil)
    }

    /// The store does not record the writer's policy or batch size: the snapshot claims none.
    @Test func theSnapshotClaimsNoPolicyOrBatchSize() async throws {
        let queue = try SQLiteEventQueue(path: path)
        try await track(3, into: queue)
        var builder = StoreSnapshotBuilder(storePath: path)
        let snapshot = builder.snapshot(from: try await StoreReader(path: path).status(), elapsed: .zero)
        #expect(snapshot.policy == nil)
        #expect(snapshot.batchSize == nil)
        #expect(!snapshot.endpoint.contains("http"))
        let failed = builder.failure(StorageError(kind: .ioError, message: "gone"), elapsed: .seconds(1))
        #expect(failed.policy == nil)
        #expect(failed.batchSize == nil)
    }

    /// A pause recorded by an engine shows in the read-only monitor, for that destination only.
    @Test func anOperatorsPauseComesFromTheStore() async throws {
        let queue = try SQLiteEventQueue(path: path)
        try await queue.register(destination: "primary")
        try await queue.register(destination: "backup")
        try await track(2, into: queue)
        try await queue.recordPause(true, destination: "backup")
        var builder = StoreSnapshotBuilder(storePath: path)
        let status = try await StoreReader(path: path).status()
        #expect(status.pausedDestinations == ["backup"])
        let snapshot = builder.snapshot(from: status, elapsed: .zero)
        #expect(snapshot.destinations.first { $0.name == "backup" }?.state == .pausedByOperator)
        #expect(snapshot.destinations.first { $0.name == "primary" }?.state == .idle)
        try await queue.recordPause(false, destination: "backup")
        let resumed = builder.snapshot(from: try await StoreReader(path: path).status(), elapsed: .seconds(1))
        #expect(resumed.destinations.allSatisfy { $0.state == .idle })
    }

    @Test func eachDestinationsDepthAndFailingBatchComeFromTheStore() async throws {
        let queue = try SQLiteEventQueue(path: path)
        try await queue.register(destination: "primary")
        try await queue.register(destination: "backup")
        try await track(10, into: queue)
        let head = try await queue.peek(for: "primary", after: nil, limit: 4, maxBytes: .max)
        func record(_ destination: String, _ outcome: BatchOutcome, error: String?) -> BatchRecord {
            BatchRecord(
                id: queue.makeBatchID(), destination: destination, startedAt: .now(), duration: .milliseconds(2), events: 4,
                bytes: 0, attempt: 1, status: outcome == .sent ? 200 : 503, outcome: outcome, error: error)
        }
        try await queue.settle(BatchSettlement(record: record("primary", .sent, error: nil), delivered: head.map(\.sequence)))
        try await queue.settle(BatchSettlement(record: record("backup", .retry, error: "HTTP 503: down")))
        var builder = StoreSnapshotBuilder(storePath: path)
        let snapshot = builder.snapshot(from: try await StoreReader(path: path).status(), elapsed: .zero)
        #expect(snapshot.destinations.map(\.name) == ["backup", "primary"])
        #expect(snapshot.destinations.map(\.depth) == [10, 6])
        #expect(snapshot.destinations.map(\.lastError) == ["HTTP 503: down", nil])
        #expect(snapshot.depth == 10)
    }

    @Test func ratesComeFromCounterDeltasAndHistoryTakesOneSamplePerSecond() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let reader = try StoreReader(path: path)
        var builder = StoreSnapshotBuilder(storePath: path, rateWindow: .seconds(5))
        _ = builder.snapshot(from: try await reader.status(), elapsed: .zero)
        try await track(10, into: queue)
        _ = builder.snapshot(from: try await reader.status(), elapsed: .milliseconds(500))  // same second: no sample
        try await track(30, into: queue)
        try await settle(queue, events: 8, outcome: .sent, milliseconds: 12)
        let snapshot = builder.snapshot(from: try await reader.status(), elapsed: .seconds(2))
        #expect(snapshot.depthHistory == [0, 32])
        #expect(snapshot.rateIn == 20)  // 40 committed over 2 s
        #expect(snapshot.rateOut == 4)  // 8 delivered over 2 s
        #expect(snapshot.totals.delivered == 8)
        #expect(snapshot.totals.batchesSent == 1)
        #expect(snapshot.recentBatches.count == 1)
        #expect(snapshot.latency.p50 == .milliseconds(12))

        // Past the window, the oldest samples no longer count.
        let later = builder.snapshot(from: try await reader.status(), elapsed: .seconds(9))
        #expect(later.rateIn == 0)
        #expect(later.depthHistory == [0, 32, 32])
    }

    @Test func batchesAreCountedOnceAndTheLatestDeadLetterIsTheLastError() async throws {
        let queue = try SQLiteEventQueue(path: path)
        try await track(6, into: queue)
        try await settle(queue, events: 2, outcome: .sent, milliseconds: 10)
        try await settle(queue, events: 2, outcome: .sent, milliseconds: 30)
        let reader = try StoreReader(path: path)
        var builder = StoreSnapshotBuilder(storePath: path)
        let first = builder.snapshot(from: try await reader.status(), elapsed: .zero)
        #expect(first.totals.batchesSent == 2)
        #expect(first.latency.p50 == .milliseconds(10) || first.latency.p50 == .milliseconds(30))
        #expect(first.latency.p99 == .milliseconds(30))

        let again = builder.snapshot(from: try await reader.status(), elapsed: .milliseconds(300))
        #expect(again.totals.batchesSent == 2, "a batch seen twice counts once")

        try await settle(queue, events: 1, outcome: .deadLettered, milliseconds: 5, deadLetterReason: "properties.total is not a number")
        let third = builder.snapshot(from: try await reader.status(), elapsed: .seconds(1))
        #expect(third.totals.deadLettered == 1)
        #expect(third.depth == 1)
        #expect(third.lastError?.contains("properties.total is not a number") == true)
    }

    @Test func theMonitorPublishesWritesMadeAfterItStarted() async throws {
        let queue = try SQLiteEventQueue(path: path)
        try await track(3, into: queue)
        let monitor = StoreMonitor(reader: try StoreReader(path: path), interval: .milliseconds(20))
        var iterator = monitor.snapshots().makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.depth == 3)
        try await track(4, into: queue)
        var seen = first
        while let snapshot = await iterator.next() {
            seen = snapshot
            if snapshot.depth == 7 { break }
        }
        #expect(seen?.depth == 7)
        #expect(seen?.isReadOnlyMonitor == true)
    }
}

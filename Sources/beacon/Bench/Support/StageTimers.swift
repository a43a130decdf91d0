import Beacon
import BeaconWire
import Foundation

/// Per-call durations of one stage of the drain benchmark, for the median breakdown.
final class StageTimer: @unchecked Sendable {
    // @unchecked: `samples` is only touched under `lock`.
    private let lock = NSLock()
    private var samples: [Double] = []

    func record(_ start: ContinuousClock.Instant) {
        let seconds = start.duration(to: .now).inSeconds
        lock.withLock { samples.append(seconds) }
    }

    /// The median in milliseconds (0 when nothing was measured).
    var medianMilliseconds: Double {
        let values = lock.withLock { samples }
        return values.isEmpty ? 0 : BenchmarkStatistics.median(values) * 1000
    }
}

/// Times `peek` and `settle` of a queue; everything else goes straight through.
final class TimedQueue: EventQueue, @unchecked Sendable {
    // @unchecked: immutable references to thread-safe objects.
    let inner: any EventQueue
    let peekTimer = StageTimer()
    let settleTimer = StageTimer()

    init(_ inner: any EventQueue) { self.inner = inner }

    var location: String { inner.location }
    var depth: QueueDepth { inner.depth }
    func append(_ event: PendingEvent) -> CommitTicket { inner.append(event) }
    func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError) { try await inner.waitForCommit(ticket) }
    func waitForPendingWrites() async { await inner.waitForPendingWrites() }
    func makeBatchID() -> Int64 { inner.makeBatchID() }
    func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter] { try await inner.deadLetters(limit: limit) }
    func facts(wake: QueueFacts.Wake) -> QueueFacts { inner.facts(wake: wake) }

    func register(destination: String) async throws(StorageError) { try await inner.register(destination: destination) }
    func releaseLeases(for destination: String) { inner.releaseLeases(for: destination) }
    func unregister(destination: String) async throws(StorageError) { try await inner.unregister(destination: destination) }

    func peek(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        let start = ContinuousClock.now
        defer { peekTimer.record(start) }
        return try await inner.peek(for: destination, after: after, limit: limit, maxBytes: maxBytes)
    }

    func settle(_ settlement: BatchSettlement) async throws(StorageError) {
        let start = ContinuousClock.now
        defer { settleTimer.record(start) }
        try await inner.settle(settlement)
    }
}

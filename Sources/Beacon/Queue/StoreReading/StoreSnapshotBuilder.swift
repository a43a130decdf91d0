import BeaconWire
import DequeModule

/// Turns successive ``StoreStatus`` reads into ``EngineSnapshot``s: the pure half of
/// ``StoreMonitor`` (the caller says how much time has passed, so tests need no clock).
///
/// - Depth history: one sample per second of `elapsed` (the first poll in each second).
/// - Rates in and out: the committed and delivered counters' change over the last
///   ``rateWindow``.
/// - Batch counts (sent, retried, split): batches in the history table when the monitor
///   started (up to the poll's batch limit) plus every newer one seen since.
/// - Latency percentiles: over the successful sends in the latest read.
/// - Last error: the newest dead letter's reason, else the newest failed batch's error.
///
/// The store does not record the writer's flush policy, batch size or endpoint: the
/// policy and batch size stay `nil` (unknown) and the endpoint says it is another
/// process's; `isReadOnlyMonitor` is always `true`.
public struct StoreSnapshotBuilder: Sendable {
    /// Depth samples kept.
    public let depthSamples: Int
    /// How far back the rates look.
    public let rateWindow: Duration
    private let storePath: String
    private var current: EngineSnapshot
    private var depthHistory: [Int] = []
    private var lastSampledSecond: Int64?
    private var counterSamples: [(elapsed: Duration, committed: Int, delivered: Int)] = []
    private var newestBatchID: Int64?

    /// A builder for snapshots of the store at `storePath`.
    public init(storePath: String, depthSamples: Int = 120, rateWindow: Duration = .seconds(5)) {
        self.storePath = storePath
        self.depthSamples = depthSamples
        self.rateWindow = rateWindow
        current = EngineSnapshot(endpoint: "another process (watched read-only)", storePath: storePath, isReadOnlyMonitor: true)
        current.batchesSeenByMonitor = true
    }

    /// The snapshot after reading `status`, `elapsed` after the monitor started.
    public mutating func snapshot(from status: StoreStatus, elapsed: Duration, time: Timestamp = .now()) -> EngineSnapshot {
        current.time = time
        current.depth = status.depth
        current.queuedBytes = status.bytes
        current.totals.accepted = status.totals.committed
        current.totals.delivered = status.totals.delivered
        current.totals.deadLettered = status.totals.deadLettered
        current.totals.dropped = status.totals.dropped
        current.totals.deadLettersRetried = status.totals.deadLettersRetried
        current.totals.deadLettersPurged = status.totals.deadLettersPurged
        current.deadLetters = status.deadLetterCount
        current.recentDeadLetters = status.recentDeadLetters.map(DeadLetterSummary.init)
        sampleDepth(status.depth, elapsed: elapsed)
        updateRates(status.totals, elapsed: elapsed)
        countNewBatches(status.recentBatches)
        current.recentBatches = status.recentBatches
        var sent = Deque<Duration>()
        for batch in status.recentBatches where batch.outcome == .sent { sent.append(batch.duration) }
        current.latency = TrackingObserver.percentiles(sent)
        if let letter = status.recentDeadLetters.first {
            current.noteError("dead letter \(letter.event.name): \(letter.reason)", at: letter.failedAt)
        } else if let failed = status.recentBatches.first(where: { $0.error != nil }), let error = failed.error {
            current.noteError(error, at: failed.startedAt)
        } else {
            current.lastError = nil
            current.lastErrorAt = nil
        }
        current.destinations = status.destinations.keys.sorted().map { name in
            // The store keeps each destination's depth; its latest batch tells whether it is failing.
            let latest = status.recentBatches.first { $0.destination == name }
            let failing = latest.map { $0.outcome != .sent && $0.outcome != .filtered } ?? false
            var destination = DestinationStatus(
                name: name, endpoint: "", depth: status.destinations[name]?.pending ?? 0,
                state: status.pausedDestinations.contains(name) ? .pausedByOperator : .idle,
                lastError: failing ? latest?.error : nil, oldestPendingAt: status.oldestPending[name],
                lastSuccessAt: status.lastSuccess[name])
            destination.stalled = destination.isStalled(at: time)
            return destination
        }
        current.storageProblem = nil
        current.unreadableStore = nil
        return current
    }

    /// The last snapshot, with the read failure as its last error.
    public mutating func failure(_ error: any Error, elapsed: Duration, time: Timestamp = .now()) -> EngineSnapshot {
        current.time = time
        current.noteError("cannot read the store: \(error)", at: time)
        // The row names the store: its reason without the path, facts first.
        var reason = (error as? StorageError)?.message ?? "\(error)"
        for prefix in [current.storePath + ": ", current.storePath + " "] where !current.storePath.isEmpty && reason.hasPrefix(prefix) {
            reason = String(reason.dropFirst(prefix.count))
        }
        current.unreadableStore = reason
        sampleDepth(current.depth, elapsed: elapsed)
        return current
    }

    private mutating func sampleDepth(_ depth: Int, elapsed: Duration) {
        let second = elapsed.components.seconds
        guard lastSampledSecond.map({ second > $0 }) ?? true else { return }
        lastSampledSecond = second
        depthHistory.append(depth)
        if depthHistory.count > depthSamples { depthHistory.removeFirst(depthHistory.count - depthSamples) }
        current.depthHistory = depthHistory
    }

    private mutating func updateRates(_ totals: QueueTotals, elapsed: Duration) {
        counterSamples.append((elapsed, totals.committed, totals.delivered))
        while counterSamples.count > 2, elapsed - counterSamples[1].elapsed >= rateWindow {
            counterSamples.removeFirst()
        }
        guard let first = counterSamples.first, let last = counterSamples.last else { return }
        let seconds = (last.elapsed - first.elapsed).inSeconds
        guard seconds > 0 else { return }
        current.rateIn = Double(max(0, last.committed - first.committed)) / seconds
        current.rateOut = Double(max(0, last.delivered - first.delivered)) / seconds
    }

    private mutating func countNewBatches(_ batches: [BatchRecord]) {
        for batch in batches.reversed() where newestBatchID.map({ batch.id > $0 }) ?? true {
            switch batch.outcome {
            case .sent: current.totals.batchesSent += 1
            case .retry: current.totals.retried += 1
            case .split: current.totals.split += 1
            case .deadLettered, .paused, .filtered: break
            }
        }
        if let newest = batches.map(\.id).max() { newestBatchID = max(newest, newestBatchID ?? newest) }
    }
}

import BeaconWire
import DequeModule

/// Watches another process's store read-only and publishes ``EngineSnapshot``s, for
/// `beacon monitor`.
///
/// GRDB's observation does not see writes made by another process, so the monitor polls:
/// each poll is one read transaction (the counters row, the recent batches, the newest
/// dead letter), well under a millisecond on an idle store. Snapshots are published only
/// when something other than their time changed.
///
/// ```swift
/// let monitor = StoreMonitor(reader: try StoreReader(path: "beacon.sqlite"))
/// for await snapshot in monitor.snapshots() {
///     print(snapshot.depth, snapshot.rateIn)
/// }
/// ```
public final class StoreMonitor: Sendable {
    /// The store being watched.
    public let reader: StoreReader
    /// Time between polls.
    public let interval: Duration
    /// Recent batches read on each poll (the history table, newest first).
    public let batchLimit: Int
    /// When set, a poll reads the store only if its files changed (``StoreFilesStamp``)
    /// or this long passed since the last read: a fleet of idle stores costs a `stat` each
    /// per poll, not a read. `nil`: every poll reads (a single store's depth chart samples
    /// each second).
    public let unchangedRereadInterval: Duration?
    /// With `unchangedRereadInterval` set, the time between polls grows while the store's
    /// files stay unchanged, doubling up to this (or `interval`, when longer), and is back
    /// to `interval` at the first change: an idle fleet wakes half as often, and a store
    /// replaced while watched still shows within a second.
    public static let unchangedPollCeiling = Duration.milliseconds(500)

    /// A monitor polling `reader` every `interval`.
    public init(
        reader: StoreReader, interval: Duration = .milliseconds(250), batchLimit: Int = 200, unchangedRereadInterval: Duration? = nil
    ) {
        self.reader = reader
        self.interval = interval
        self.batchLimit = batchLimit
        self.unchangedRereadInterval = unchangedRereadInterval
    }

    /// Snapshots from the first poll on; polling stops when the consumer stops iterating
    /// (or its task is cancelled). The newest snapshot wins when the reader is slow.
    public func snapshots() -> AsyncStream<EngineSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: EngineSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        // The poller runs beside its reader, not in the reader's task: the newest snapshot
        // waits in the stream while the reader draws, and the reader's going away (the
        // stream's termination) cancels it.
        // The loop runs in a function the task calls, not in the task's own closure, which
        // then holds no snapshot (as in `SnapshotInbox.init`: Swift 6.3 miscompiled tasks
        // whose first frame held one).
        let task = Task { [reader, interval, batchLimit, unchangedRereadInterval] in
            await Self.poll(reader, interval: interval, batchLimit: batchLimit, reread: unchangedRereadInterval, into: continuation)
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Reads the store every `interval` and yields each snapshot that shows something new,
    /// until cancelled; then finishes the stream.
    private static func poll(
        _ reader: StoreReader, interval: Duration, batchLimit: Int, reread: Duration?,
        into continuation: AsyncStream<EngineSnapshot>.Continuation
    ) async {
        var builder = StoreSnapshotBuilder(storePath: reader.path)
        let clock = ContinuousClock()
        var start = clock.now
        var published: EngineSnapshot?
        var read = reader.identity
        var lastStamp: StoreFilesStamp?
        var lastRead: ContinuousClock.Instant?
        let ceiling = max(interval, unchangedPollCeiling)
        var unchangedSleep = interval
        while !Task.isCancelled {
            if let reread {
                let stamp = StoreFilesStamp(path: reader.path)
                if let lastRead, stamp == lastStamp, clock.now - lastRead < reread {
                    unchangedSleep = min(unchangedSleep * 2, ceiling)
                    do { try await Task.sleep(for: unchangedSleep) } catch { break }
                    continue  // nothing written since the last read
                }
                unchangedSleep = interval
                lastStamp = stamp
                lastRead = clock.now
            }
            let snapshot: EngineSnapshot
            do {
                let status = try await reader.status(batchLimit: batchLimit, deadLetterLimit: DeadLetterSummary.snapshotLimit)
                if reader.identity != read {
                    // Another file at the path now: its figures start afresh (no rate from the old one's counters).
                    read = reader.identity
                    builder = StoreSnapshotBuilder(storePath: reader.path)
                    start = clock.now
                }
                snapshot = builder.snapshot(from: status, elapsed: clock.now - start)
            } catch {
                snapshot = builder.failure(error, elapsed: clock.now - start)
            }
            if published.map({ !snapshot.isSameApartFromTime(as: $0) }) ?? true {
                continuation.yield(snapshot)
                published = snapshot
            }
            do {
                try await Task.sleep(for: interval)
            } catch {
                break  // cancelled: the consumer went away
            }
        }
        continuation.finish()
    }
}

extension EngineSnapshot {
    /// Whether `other` shows the same thing, apart from when it was taken.
    func isSameApartFromTime(as other: EngineSnapshot) -> Bool {
        var copy = other
        copy.time = time
        return copy == self
    }
}

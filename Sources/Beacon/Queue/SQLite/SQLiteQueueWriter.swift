import BeaconWire
import Foundation
import GRDB
import Logging
import Synchronization

/// The SQLite queue's one writer: it commits the groups its ``GroupCommitBuffer`` hands it,
/// keeps the one state every transaction updates (counters, leases, the fault log) under
/// one lock, and publishes the facts of commits, drops, faults and recovery.
/// The buffer holds it from `init` on; it holds neither the buffer nor the queue.
final class SQLiteQueueWriter: GroupCommitWriter {
    let location: String
    let pool: DatabasePool
    let configuration: SQLiteEventQueue.Configuration
    let logger: Logger
    /// Copies the write-ahead log into the database off the writer's path.
    let checkpointer: QueueCheckpointer
    let state: Mutex<SQLiteEventQueue.State>
    /// The bookkeeping as the last write transaction left it (``bookkeeping(_:order:)``).
    let book = Mutex(KeptBookkeeping())
    /// The queue's one stream out (``EventQueue/facts(wake:)``).
    let facts = QueueFactPublisher()

    init(
        location: String, pool: DatabasePool, configuration: SQLiteEventQueue.Configuration, logger: Logger,
        checkpointer: QueueCheckpointer, state: SQLiteEventQueue.State
    ) {
        self.location = location
        self.pool = pool
        self.configuration = configuration
        self.logger = logger
        self.checkpointer = checkpointer
        self.state = Mutex(state)
    }

    /// When the log's tail segment is full.
    var segmentLimits: LogSegments.Limits {
        LogSegments.Limits(events: Int64(max(1, configuration.segmentEvents)), bytes: Int64(max(1, configuration.segmentBytes)))
    }

    // MARK: Commits (on the buffer's writer thread)

    func commit(_ group: [PendingEvent]) -> StorageError? {
        if let problem = checkFileIdentity() { return problem }
        let (leases, memoryDrops) = state.withLock { (Array($0.leases.values), $0.unrecordedDrops) }
        let limits = (events: configuration.maxQueuedEvents, bytes: configuration.maxQueuedBytes)
        var dropped = 0
        let result: Counters
        do {
            result = try transaction { db in
                // The bookkeeping as the last transaction left it: a settle may have
                // committed since this group was taken.
                let order = self.nextTransactionOrder()
                var book = try self.bookkeeping(db, order: order)
                let bytes = group.reduce(0) { $0 + $1.payload.count }
                try book.segments.append(group, firstSeq: book.stored.nextSeq, limits: self.segmentLimits, db)
                book.stored.bytes += bytes
                book.stored.nextSeq += Int64(group.count)
                book.stored.committed += group.count
                book.stored.dropped += memoryDrops  // drops from memory while the store failed
                guard book.stored.depth + group.count <= limits.events, book.stored.bytes <= limits.bytes else {
                    // Past the bound: drop the oldest events no destination is sending.
                    dropped = try book.dropOldest(leases: leases, limits: limits, db)
                    try book.finish(db)
                    return (book, Counters(book))
                }
                // The common case: appending moves no cursor; the depth and every
                // destination's pending count grow by the group.
                book.stored.depth += group.count
                for (name, var destination) in book.destinations {
                    destination.pending += group.count
                    try destination.write(db)
                    book.destinations[name] = destination
                }
                try book.stored.write(db, now: Timestamp.now().millisecondsSince1970)
                // A segment just closed may already be all delivered.
                if book.segments.segments.count > 1 { try book.segments.dropThrough(book.log.floor, db) }
                return (book, Counters(stored: book.stored, destinations: book.destinations, order: order))
            }.1
        } catch {
            return StorageError(error, path: location)
        }
        apply(result, recordedDrops: memoryDrops)
        if dropped > 0 {
            logger.warning("queue full: dropped oldest events", metadata: ["events": "\(dropped)"])
            state.withLock { $0.overflowDrops += dropped }
        }
        return nil
    }

    func bufferReported(_ report: GroupCommitBuffer.Report) {
        switch report {
        case .committed(let count, let counts):
            let depth = self.depth(counts)
            notify(.committed(count: count, depth: depth))
            let overflow = state.withLock { state in
                defer { state.overflowDrops = 0 }
                return state.overflowDrops
            }
            if overflow > 0 { notify(.dropped(count: overflow, reason: "queue full (overflow policy: drop oldest)", depth: depth)) }
        case .dropped(let count, let counts):
            droppedFromMemory(count, counts)
        case .failed(let error, let counts, let changed):
            storageFailed(error, counts, changed: changed)
        case .recovered(let counts):
            storageRecovered(counts)
        }
    }

    /// The queue's counts: the store's as the last transaction left them, and the buffer's.
    func depth(_ counts: GroupCommitBuffer.Counts) -> QueueDepth {
        state.withLock { state in
            var totals = state.stored.totals
            totals.dropped += state.unrecordedDrops
            totals.accepted = counts.accepted
            totals.deadLettersRetried = state.deadLetterCounts.retried
            totals.deadLettersPurged = state.deadLetterCounts.purged
            return QueueDepth(
                events: state.stored.depth, bytes: state.stored.bytes, buffered: counts.buffered, totals: totals,
                destinations: state.destinations.mapValues(\.depth), deadLetters: state.deadLetterCounts.rows)
        }
    }

    /// Called inside a write transaction: SQLite runs them one at a time, so the numbers
    /// follow the order in which their counters were written.
    func nextTransactionOrder() -> UInt64 {
        state.withLock { state in
            state.transactions += 1
            return state.transactions
        }
    }

    /// Copies a transaction's counters into memory unless a later one already did.
    /// What a write transaction leaves in memory: its counters, in the order it ran.
    struct Counters {
        var stored: StoreSchema.State
        var destinations: [String: StoreSchema.DestinationState]
        var order: UInt64
        /// Set by the transactions that change the dead-letter table or its counters.
        var deadLetterCounts: StoreSchema.DeadLetterCounts?

        init(
            stored: StoreSchema.State, destinations: [String: StoreSchema.DestinationState], order: UInt64,
            deadLetterCounts: StoreSchema.DeadLetterCounts? = nil
        ) {
            self.stored = stored
            self.destinations = destinations
            self.order = order
            self.deadLetterCounts = deadLetterCounts
        }

        init(_ snapshot: SQLiteEventQueue.Snapshot) {
            self.init(
                stored: snapshot.stored, destinations: snapshot.destinations, order: snapshot.order,
                deadLetterCounts: snapshot.deadLetterCounts)
        }
    }

    func apply(_ snapshot: SQLiteEventQueue.Snapshot, recordedDrops: Int = 0) {
        apply(Counters(snapshot), recordedDrops: recordedDrops)
    }

    func apply(_ counters: Counters, recordedDrops: Int = 0) {
        state.withLock { state in
            // A later transaction read its counters after this one committed: its copy,
            // applied already or not, includes these drops too.
            state.unrecordedDrops -= recordedDrops
            if let counts = counters.deadLetterCounts, counters.order > state.appliedDeadLetterTransaction {
                state.appliedDeadLetterTransaction = counters.order
                state.deadLetterCounts = counts
            }
            guard counters.order > state.appliedTransaction else { return }
            state.appliedTransaction = counters.order
            state.stored = counters.stored
            state.destinations = counters.destinations
        }
    }

    // MARK: Faults, logged at a bounded rate

    private func droppedFromMemory(_ count: Int, _ counts: GroupCommitBuffer.Counts) {
        let first = state.withLock { state in
            state.unrecordedDrops += count
            state.totalMemoryDrops += count
            state.faultLog.droppedInRun += count
            state.faultLog.droppedSinceSummary += count
            return state.faultLog.droppedInRun == count
        }
        if first {
            logger.error("memory buffer full while the store fails: dropping the oldest buffered events (counted as dropped)", metadata: [
                "events": "\(count)",
            ])
        }
        notify(.dropped(count: count, reason: "store failing and memory buffer full", depth: depth(counts)))
    }

    private func storageFailed(_ error: StorageError, _ counts: GroupCommitBuffer.Counts, changed: Bool) {
        let buffered = counts.buffered
        checkpointer.storeFailing(true)
        let now = ContinuousClock.now
        let interval = configuration.logSummaryInterval
        let summary = state.withLock { state -> (seconds: Int64, dropped: Int)? in
            var log = state.faultLog
            defer { state.faultLog = log }
            if log.failingSince == nil { log.failingSince = now }
            if changed {
                log.lastSummary = now
                log.droppedSinceSummary = 0
                return nil
            }
            guard now - (log.lastSummary ?? now) >= interval else { return nil }
            log.lastSummary = now
            defer { log.droppedSinceSummary = 0 }
            return ((now - (log.failingSince ?? now)).components.seconds, log.droppedSinceSummary)
        }
        if changed {
            logger.error("store write failed; holding events in memory and retrying", metadata: [
                "kind": "\(error.kind.rawValue)", "error": "\(error.message)", "buffered": "\(buffered)",
            ])
            notify(.storageProblem(StorageProblem(kind: error.kind, message: error.message, since: .now(), bufferedEvents: buffered)))
        } else if let summary {
            logger.error("store still failing", metadata: [
                "kind": "\(error.kind.rawValue)", "for": "\(summary.seconds) s", "buffered": "\(buffered)",
                "dropped": "\(summary.dropped) since the last summary",
            ])
        }
    }

    private func storageRecovered(_ counts: GroupCommitBuffer.Counts) {
        checkpointer.storeFailing(false)
        let run = state.withLock { state -> (seconds: Int64, dropped: Int) in
            defer { state.faultLog = SQLiteEventQueue.FaultLog() }
            return ((ContinuousClock.now - (state.faultLog.failingSince ?? .now)).components.seconds, state.faultLog.droppedInRun)
        }
        logger.notice("store writes work again", metadata: ["after": "\(run.seconds) s", "dropped": "\(run.dropped)"])
        notify(.storageRecovered(depth: depth(counts)))
    }

    /// Publishes a fact: appended to each subscription, no subscriber's code runs here.
    func notify(_ event: QueueEvent) {
        facts.publish(event)
    }

    /// Notices when the file was removed or replaced underneath the open store: writes
    /// would go to a file nobody can open again. One `stat` per transaction (about a
    /// microsecond).
    private func checkFileIdentity() -> StorageError? {
        let expected = state.withLock { $0.fileIdentity }
        guard let expected, FileIdentity(path: location) != expected else { return nil }
        return StorageError(
            kind: .fileRemoved,
            message: "\(location) was removed or replaced while open; restore it or restart with a new store")
    }
}

import BeaconWire
import DequeModule
import Synchronization

/// A queue in memory: same contract as ``SQLiteEventQueue`` (group commit, leases,
/// settlement, dead letters, history), nothing survives the process. For tests, and for
/// processes that prefer losing events on a crash to touching the disk.
public final class InMemoryEventQueue: EventQueue {
    public let location = "in memory"
    private let buffer: GroupCommitBuffer
    /// The queue's writer: its storage and its facts. The buffer holds it too.
    private let store: Store

    /// Commits the buffer's groups into `storage` and publishes the facts.
    fileprivate final class Store: GroupCommitWriter {
        let storage: Mutex<Storage>
        let facts = QueueFactPublisher()

        init(maxEvents: Int) {
            storage = Mutex(Storage(maxEvents: maxEvents))
        }

        func notify(_ event: QueueEvent) {
            facts.publish(event)
        }

        func depth(_ counts: GroupCommitBuffer.Counts) -> QueueDepth {
            storage.withLock { storage in
                var totals = storage.totals
                totals.accepted = counts.accepted
                return QueueDepth(
                    events: storage.events.count, bytes: storage.bytes, buffered: counts.buffered, totals: totals,
                    destinations: storage.destinations, deadLetters: storage.deadLetters.count)
            }
        }
    }

    fileprivate struct Storage {
        var events = Deque<Entry>()
        var bytes = 0
        var nextSeq: Int64 = 1
        var totals = QueueTotals()
        var destinations: [String: DestinationDepth] = [:]
        var leases: [String: ClosedRange<Int64>] = [:]
        var deadLetters: [DeadLetter] = []
        var lastDeadLetterID: Int64 = 0
        /// Letters retried, by their copy's sequence and destination: a new refusal of the
        /// copy brings the letter back under its id, one attempt more.
        var retried: [RetryKey: DeadLetter] = [:]
        var batches: [BatchRecord] = []
        var lastBatchID: Int64 = 0
        var maxEvents: Int
        /// The destinations an operator paused (``recordPause(_:destination:)``).
        var paused: Set<String> = []
        /// Events the last commit dropped by the bound, for its report.
        var overflowDrops = 0

        /// Counts an event every destination is done with as it leaves: dead-lettered if a
        /// destination's letter for it is held (as the SQLite store counts), else delivered.
        mutating func leave(_ entry: Entry, deadLetteredNow: Bool = false) {
            bytes -= entry.event.payloadCount
            if deadLetteredNow || deadLetters.contains(where: { $0.event.sequence == entry.event.sequence }) {
                totals.deadLettered += 1
            } else {
                totals.delivered += 1
            }
        }

        mutating func register(_ destination: String) {
            guard destinations[destination] == nil else { return }
            destinations[destination] = DestinationDepth(pending: events.count { !$0.doneBy.contains(destination) })
        }
    }

    fileprivate struct RetryKey: Hashable {
        var sequence: Int64
        var destination: String
    }

    fileprivate struct Entry {
        var event: QueuedEvent
        var createdAt: Timestamp
        var doneBy: Set<String> = []
    }

    /// A queue holding at most `maxQueuedEvents` (oldest dropped past that).
    public init(maxQueuedEvents: Int = 1_000_000, memoryBufferCapacity: Int = 10_000) {
        let store = Store(maxEvents: maxQueuedEvents)
        self.store = store
        var configuration = GroupCommitBuffer.Configuration()
        configuration.capacity = memoryBufferCapacity
        self.buffer = GroupCommitBuffer(configuration: configuration, label: "beacon.memory-queue.writer", writer: store)
    }
}

extension InMemoryEventQueue.Store {
    func commit(_ group: [PendingEvent]) -> StorageError? {
        storage.withLock { storage in
            for event in group {
                storage.events.append(InMemoryEventQueue.Entry(
                    event: QueuedEvent(sequence: storage.nextSeq, messageId: event.messageId, name: event.name, payload: event.payload),
                    createdAt: event.createdAt))
                storage.nextSeq += 1
                storage.bytes += event.payload.count
            }
            storage.totals.committed += group.count
            for name in storage.destinations.keys { storage.destinations[name]?.pending += group.count }
            // Drops the oldest events no destination is sending.
            let leases = Array(storage.leases.values)
            var dropped = 0
            var index = 0
            while storage.events.count > storage.maxEvents, index < storage.events.count {
                let entry = storage.events[index]
                if leases.contains(where: { $0.contains(entry.event.sequence) }) {
                    index += 1
                    continue
                }
                storage.events.remove(at: index)
                storage.bytes -= entry.event.payloadCount
                for name in storage.destinations.keys where !entry.doneBy.contains(name) {
                    storage.destinations[name]?.pending -= 1
                    storage.destinations[name]?.dropped += 1
                }
                dropped += 1
            }
            storage.totals.dropped += dropped
            storage.overflowDrops += dropped
        }
        return nil
    }

    func bufferReported(_ report: GroupCommitBuffer.Report) {
        guard case .committed(let count, let counts) = report else { return }  // memory neither fails nor drops for it
        let depth = self.depth(counts)
        notify(.committed(count: count, depth: depth))
        let dropped = storage.withLock { storage in
            defer { storage.overflowDrops = 0 }
            return storage.overflowDrops
        }
        if dropped > 0 { notify(.dropped(count: dropped, reason: "queue full (overflow policy: drop oldest)", depth: depth)) }
    }
}

extension InMemoryEventQueue {

    public func append(_ event: PendingEvent) -> CommitTicket { buffer.append(event) }

    public func appendSuspending(_ event: PendingEvent) async -> CommitTicket { await buffer.appendSuspending(event) }

    public func appendSuspending(contentsOf events: [PendingEvent]) async -> [CommitTicket] {
        await buffer.appendSuspending(contentsOf: events)
    }

    public func waitForCommit(_ ticket: CommitTicket) async throws(TrackingError) {
        guard await buffer.waitForCommit(ticket) else { throw .droppedBeforeCommit }
    }

    public func waitForPendingWrites() async { await buffer.waitForPendingWrites() }

    public func waitForCommit(_ ticket: CommitTicket, timeout: Duration) async -> CommitWaitResult {
        await buffer.waitForCommit(ticket, until: .now + timeout)
    }

    public func waitForPendingWrites(timeout: Duration) async -> Bool {
        let last = buffer.lastTicketIssued
        guard last.rawValue > 0 else { return true }
        return await buffer.waitForCommit(last, until: .now + timeout) != .timedOut
    }

    public var depth: QueueDepth {
        store.depth(GroupCommitBuffer.Counts(buffered: buffer.bufferedCount, accepted: buffer.acceptedCount))
    }

    public func makeBatchID() -> Int64 {
        store.storage.withLock { storage in
            storage.lastBatchID += 1
            return storage.lastBatchID
        }
    }

    public func register(destination: String) async throws(StorageError) {
        store.storage.withLock { $0.register(destination) }
    }

    /// Kept as the store keeps it, for as long as the queue lives.
    public func recordPause(_ paused: Bool, destination: String) async throws(StorageError) {
        store.storage.withLock { storage in
            if paused { storage.paused.insert(destination) } else { storage.paused.remove(destination) }
        }
    }

    public func pausedDestinations() async throws(StorageError) -> Set<String> {
        store.storage.withLock { $0.paused }
    }

    public func unregister(destination: String) async throws(StorageError) {
        store.storage.withLock { storage in
            storage.paused.remove(destination)  // its recorded pause goes with it, as in the store
            guard storage.destinations.removeValue(forKey: destination) != nil else { return }
            storage.leases[destination] = nil
            guard !storage.destinations.isEmpty else { return }
            var kept = Deque<Entry>()
            for var entry in storage.events {
                if storage.destinations.keys.allSatisfy({ entry.doneBy.contains($0) }) {
                    storage.leave(entry)
                } else {
                    // Registered again later, it starts with every queued event pending.
                    entry.doneBy.remove(destination)
                    kept.append(entry)
                }
            }
            storage.events = kept
        }
    }

    public func peek(for destination: String, after: Int64?, limit: Int, maxBytes: Int) async throws(StorageError) -> [QueuedEvent] {
        store.storage.withLock { storage in
            storage.register(destination)
            var events: [QueuedEvent] = []
            var bytes = 0
            for entry in storage.events where entry.event.sequence > after ?? 0 && !entry.doneBy.contains(destination) {
                if events.count == max(1, limit) { break }
                if !events.isEmpty, bytes + entry.event.payloadCount > maxBytes { break }
                bytes += entry.event.payloadCount
                events.append(entry.event)
            }
            if let first = events.first, let last = events.last {
                let lease = storage.leases[destination].map { min($0.lowerBound, first.sequence)...max($0.upperBound, last.sequence) }
                storage.leases[destination] = lease ?? first.sequence...last.sequence
            }
            return events
        }
    }

    public func releaseLeases(for destination: String) {
        store.storage.withLock { $0.leases[destination] = nil }
    }

    public func settle(_ settlement: BatchSettlement) async throws(StorageError) {
        let destination = settlement.record.destination
        let delivered = Set(settlement.delivered)
        let filtered = Set(settlement.filtered)
        let dead = Set(settlement.deadLetters.map(\.event.sequence))
        store.storage.withLock { storage in
            storage.register(destination)
            var mine = storage.destinations[destination] ?? DestinationDepth()
            var letters: [DeadLetter] = []
            var kept = Deque<Entry>()
            for var entry in storage.events {
                let sequence = entry.event.sequence
                if !entry.doneBy.contains(destination) {
                    if delivered.contains(sequence) {
                        mine.delivered += 1
                    } else if filtered.contains(sequence) {
                        mine.filtered += 1
                    } else if dead.contains(sequence) {
                        mine.deadLettered += 1
                        letters.append(contentsOf: settlement.deadLetters.filter { $0.event.sequence == sequence })
                    } else {
                        kept.append(entry)
                        continue
                    }
                    mine.pending -= 1
                    entry.doneBy.insert(destination)
                }
                if storage.destinations.keys.allSatisfy({ $0 == destination || entry.doneBy.contains($0) }) {
                    storage.leave(entry, deadLetteredNow: dead.contains(sequence))
                } else {
                    kept.append(entry)
                }
            }
            storage.events = kept
            storage.destinations[destination] = mine
            for var letter in letters {
                // One letter per event and destination, as the SQLite store keeps them.
                storage.deadLetters.removeAll { $0.event.sequence == letter.event.sequence && $0.destination == letter.destination }
                if let before = storage.retried.removeValue(forKey: RetryKey(sequence: letter.event.sequence, destination: letter.destination)) {
                    letter.id = before.id
                    letter.attempts = before.attempts + [DeadLetterAttempt(
                        number: before.attemptCount + 1, reason: letter.reason, status: letter.status, failedAt: letter.failedAt)]
                } else {
                    storage.lastDeadLetterID += 1
                    letter.id = storage.lastDeadLetterID
                }
                storage.deadLetters.append(letter)
            }
            storage.batches.append(settlement.record)
            if storage.batches.count > 1000 { storage.batches.removeFirst(storage.batches.count - 1000) }
            if let lease = storage.leases[destination] {
                if let through = settlement.through, through < lease.upperBound {
                    storage.leases[destination] = max(lease.lowerBound, through + 1)...lease.upperBound
                } else {
                    storage.leases[destination] = nil
                }
            }
        }
        let depth = self.depth
        store.notify(.settled(settlement, depth: depth))
    }

    public func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter] {
        store.storage.withLock { Array($0.deadLetters.suffix(limit).reversed()) }
    }

    public func deadLetters(afterID: Int64, limit: Int) async throws(StorageError) -> [DeadLetter] {
        store.storage.withLock { Array($0.deadLetters.filter { $0.id > afterID }.prefix(max(0, limit))) }
    }

    public func deadLetter(id: Int64) async throws(StorageError) -> DeadLetter? {
        store.storage.withLock { $0.deadLetters.first { $0.id == id } }
    }

    public func deadLetters(matching query: DeadLetterQuery, limit: Int) async throws(StorageError) -> DeadLetterPage {
        store.storage.withLock { storage in
            let found = storage.deadLetters.filter(query.matches)
            return DeadLetterPage(letters: Array(found.suffix(max(0, limit)).reversed()), total: found.count)
        }
    }

    public func retryDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        changeDeadLetters(selection) { letter, storage in
            guard storage.destinations[letter.destination] != nil else {
                return "destination \(letter.destination) is not registered in this queue"
            }
            var event = letter.event
            event.sequence = storage.nextSeq
            storage.nextSeq += 1
            let others = Set(storage.destinations.keys.filter { $0 != letter.destination })
            storage.events.append(Entry(event: event, createdAt: .now(), doneBy: others))
            storage.retried[RetryKey(sequence: event.sequence, destination: letter.destination)] = letter
            storage.bytes += event.payloadCount
            storage.destinations[letter.destination]?.pending += 1
            storage.totals.deadLettersRetried += 1
            return nil
        }
    }

    public func purgeDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        changeDeadLetters(selection) { _, storage in
            storage.totals.deadLettersPurged += 1
            return nil
        }
    }

    private func changeDeadLetters(
        _ selection: DeadLetterSelection, _ body: (DeadLetter, inout Storage) -> String?
    ) -> DeadLetterChange {
        let change = store.storage.withLock { storage in
            var change = DeadLetterChange()
            let letters: [DeadLetter]
            switch selection {
            case .all:
                letters = storage.deadLetters
            case .matching(let query):
                letters = storage.deadLetters.filter(query.matches)
            case .ids(let ids):
                var seen = Set<Int64>()
                var found: [DeadLetter] = []
                for id in ids where seen.insert(id).inserted {
                    if let letter = storage.deadLetters.first(where: { $0.id == id }) { found.append(letter) } else { change.missing.append(id) }
                }
                letters = found
            }
            if !change.missing.isEmpty { return change }
            for letter in letters {
                if let reason = body(letter, &storage) {
                    change.refused.append(DeadLetterChange.Refusal(id: letter.id, reason: reason))
                    continue
                }
                storage.deadLetters.removeAll { $0.id == letter.id }
                change.done.append(letter.id)
                change.destinations.insert(letter.destination)
            }
            // Forget retries whose copy left the queue.
            if !storage.retried.isEmpty {
                let queued = Set(storage.events.map(\.event.sequence))
                storage.retried = storage.retried.filter { queued.contains($0.key.sequence) }
            }
            return change
        }
        if !change.done.isEmpty {
            let depth = self.depth
            store.notify(.deadLettersChanged(change, depth: depth))
        }
        return change
    }

    public func oldestPending() async throws(StorageError) -> [String: Timestamp] {
        store.storage.withLock { storage in
            var oldest: [String: Timestamp] = [:]
            for name in storage.destinations.keys {
                if let entry = storage.events.first(where: { !$0.doneBy.contains(name) }) { oldest[name] = entry.createdAt }
            }
            return oldest
        }
    }

    public func facts(wake: QueueFacts.Wake) -> QueueFacts {
        store.facts.subscribe(wake: wake)
    }

    /// Subscriptions to ``facts(wake:)`` now.
    @_spi(Testing) public var factSubscriptions: Int { store.facts.subscriberCount }
}

/// `@unchecked Sendable`: `queue` is set once in `init`, before any commit can run.

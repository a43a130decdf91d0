import BeaconWire
import Foundation
import GRDB
import Logging
import Synchronization

/// Settling a batch, and the bookkeeping every write transaction shares.
extension SQLiteEventQueue {
    public func settle(_ settlement: BatchSettlement) async throws(StorageError) {
        let historyLimit = Int64(configuration.batchHistoryLimit)
        let destination = settlement.record.destination
        let leased = writer.state.withLock { $0.leasedSizes[destination] ?? LeasedSizes() }
        let result: Snapshot
        do {
            result = try await writer.transaction { db in
                var snapshot = try self.writer.bookkeeping(db, order: self.nextTransactionOrder())
                try snapshot.register(destination, db)
                let last = snapshot.stored.nextSeq - 1
                for letter in settlement.deadLetters where snapshot.log.isPending(letter.event.sequence, for: destination, through: last) {
                    try DeadLetterRows.insert(letter, destination: destination, db)
                }
                if !settlement.deadLetters.isEmpty {
                    let counts = try StoreSchema.DeadLetterCounts.read(db)
                    snapshot.deadLetterCounts = counts
                    snapshot.deadLetterRows = counts.rows
                }
                var mine = snapshot.destinations[destination] ?? StoreSchema.DestinationState(name: destination)
                mine.delivered += try snapshot.markDone(settlement.delivered, by: destination, leased: leased, db)
                mine.filtered += try snapshot.markDone(settlement.filtered, by: destination, leased: leased, db)
                mine.deadLettered += try snapshot.markDone(
                    settlement.deadLetters.map(\.event.sequence), by: destination, leased: leased, db)
                snapshot.destinations[destination] = mine
                let record = settlement.record
                try db.run(
                    """
                        INSERT OR REPLACE INTO batches (id, destination, started_at, duration_us, events, bytes, attempt, status, outcome, error)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    [
                        record.id, record.destination, record.startedAt.millisecondsSince1970,
                        record.duration.inMicroseconds, record.events, record.bytes, record.attempt, record.status,
                        record.outcome.rawValue, record.error,
                    ])
                // The history is cut back every 16 batches: it holds at most the limit and 15.
                if record.id % 16 == 0 { try db.run("DELETE FROM batches WHERE id <= ?", [record.id - historyLimit]) }
                try snapshot.finish(db)
                return (snapshot, ())
            }.0
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result)
        writer.state.withLock { state in
            guard let lease = state.leases[destination] else { return }
            if let through = settlement.through, through < lease.upperBound {
                state.leases[destination] = max(lease.lowerBound, through + 1)...lease.upperBound
                state.leasedSizes[destination]?.removeThrough(through)
            } else {
                state.leases[destination] = nil
                state.leasedSizes[destination] = nil
            }
        }
        notify(.settled(settlement, depth: self.depth))
    }

    // MARK: The state of a write transaction

    /// Everything a write transaction reads and changes, applied to memory in the order
    /// the transactions ran.
    struct Snapshot {
        var stored: StoreSchema.State
        var destinations: [String: StoreSchema.DestinationState]
        /// Where each destination stands, and what left.
        var log: LogCursors
        var segments: LogSegments
        var order: UInt64
        /// Set by the transactions that change the dead-letter table or its counters.
        var deadLetterCounts: StoreSchema.DeadLetterCounts?
        /// As read: ``finish(_:)`` writes only what changed.
        private let readLog: LogCursors
        private let readDestinations: [String: StoreSchema.DestinationState]
        /// Rows of the dead-letter table (a settle that stores letters and the dead-letter
        /// operations set it): while it is 0, what leaves the queue needs no look there.
        var deadLetterRows = 0
        /// The writer connection's pager data version as the transaction that kept it
        /// committed (`nil`: not known, so never kept); see ``SQLiteQueueWriter/fileDataVersion(_:)``.
        var dataVersion: Int64?

        /// Reads every bookkeeping table. Write transactions take it through
        /// ``SQLiteQueueWriter/bookkeeping(_:order:)``, which reads only when another
        /// connection wrote since this process's last transaction.
        static func read(_ db: Database, order: UInt64) throws -> Snapshot {
            let destinations = try StoreSchema.DestinationState.readAll(db)
            let log = try LogCursors.read(db, destinations: destinations)
            return Snapshot(
                stored: try StoreSchema.State.read(db), destinations: destinations, log: log, segments: try LogSegments.read(db),
                order: order, readLog: log, readDestinations: destinations,
                deadLetterRows: try StoreSchema.DeadLetterCounts.read(db).rows)
        }

        /// Whether two snapshots hold the same bookkeeping (the store's tables), whatever
        /// their order and what they were read as.
        func sameBookkeeping(as other: Snapshot) -> Bool {
            stored == other.stored && destinations == other.destinations && log == other.log && segments == other.segments
                && deadLetterRows == other.deadLetterRows
        }

        /// The newest sequence number handed out.
        var last: Int64 { stored.nextSeq - 1 }

        /// Registers `name` unless it is: it starts with every queued event pending.
        mutating func register(_ name: String, _ db: Database) throws {
            guard log.positions[name] == nil else { return }
            log.register(name)
            try db.execute(
                sql: """
                    INSERT INTO destinations (name, cursor, pending, delivered, dead_lettered, filtered, dropped, registered_at)
                    VALUES (?, ?, 0, 0, 0, 0, 0, ?)
                    """,
                arguments: [name, log.floor, Timestamp.now().millisecondsSince1970])
            destinations[name] = StoreSchema.DestinationState(name: name, cursor: log.floor)
        }

        /// Marks `sequences` done for `name` and counts what left; returns how many were
        /// pending for it. `leased` holds the payload sizes its peeks read.
        mutating func markDone(_ sequences: [Int64], by name: String, leased: LeasedSizes, _ db: Database) throws -> Int {
            let (newly, left) = log.markDone(sequences, by: name, through: last)
            try recordLeft(left, leased: leased, db)
            return Int(clamping: newly.count)
        }

        /// Counts events that left the queue: their bytes (from `leased` when it has them
        /// all, else read), and each as dead-lettered if any destination dead-lettered it,
        /// else as delivered.
        mutating func recordLeft(_ left: SequenceRanges, leased: LeasedSizes, _ db: Database) throws {
            guard !left.isEmpty else { return }
            let count = Int(clamping: left.count)
            let bytes = try leased.bytes(of: left) ?? segments.payloadBytes(of: left, db)
            var deadLettered = 0
            // Only a store that holds dead letters can count some among what left.
            for range in left.ranges where deadLetterRows > 0 {
                deadLettered += try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT count(DISTINCT seq) FROM dead_letters WHERE seq BETWEEN ? AND ?"),
                    arguments: [range.lowerBound, range.upperBound]) ?? 0
            }
            stored.bytes -= bytes
            stored.deadLettered += deadLettered
            stored.delivered += count - deadLettered
        }

        /// Derives depth and each destination's pending count from the cursors, writes
        /// what changed, and drops the segments every event has left.
        mutating func finish(_ db: Database) throws {
            stored.depth = log.depth(through: last)
            for (name, var destination) in destinations {
                guard let position = log.positions[name] else { continue }
                destination.cursor = position.cursor
                destination.pending = Int(clamping: log.pending(for: name, through: last).count)
                destinations[name] = destination
            }
            for destination in destinations.values where destination != readDestinations[destination.name] {
                try destination.write(db)
            }
            try log.write(changedFrom: readLog, db, floor: false)
            try segments.dropThrough(log.floor, db)
            try stored.write(db, now: Timestamp.now().millisecondsSince1970, floor: log.floor)
        }
    }
}

extension SQLiteEventQueue.Snapshot {
    /// The bookkeeping a committed transaction left (`kept`), as the state the next
    /// transaction starts from: what it will change is compared with it.
    init(continuing kept: SQLiteEventQueue.Snapshot, order: UInt64) {
        self.init(
            stored: kept.stored, destinations: kept.destinations, log: kept.log, segments: kept.segments, order: order,
            readLog: kept.log, readDestinations: kept.destinations, deadLetterRows: kept.deadLetterRows)
        dataVersion = kept.dataVersion
    }
}

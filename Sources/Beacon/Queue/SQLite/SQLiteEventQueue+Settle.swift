import BeaconWire
import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// Settling a batch, and the per-destination bookkeeping inside write transactions.
extension SQLiteEventQueue {
    public func settle(_ settlement: BatchSettlement) async throws(StorageError) {
        let historyLimit = Int64(configuration.batchHistoryLimit)
        let destination = settlement.record.destination
        let result: Snapshot
        do {
            result = try await pool.writeWithoutTransaction { db in
                try db.inCachedTransaction {
                    var snapshot = try Snapshot.read(db, order: self.nextTransactionOrder())
                    var mine = try snapshot.destinations[destination]
                        ?? Self.insertDestination(destination, depth: snapshot.stored.depth, db)
                    let others = snapshot.destinations.values.filter { $0.name != destination }
                    let now = Timestamp.now().millisecondsSince1970
                    for letter in settlement.deadLetters {
                        guard try Self.isPending(letter.event.sequence, for: mine, db) else { continue }
                        try DeadLetterRows.insert(letter, destination: destination, db)
                    }
                    if !settlement.deadLetters.isEmpty { snapshot.deadLetterCounts = try StoreSchema.DeadLetterCounts.read(db) }
                    mine.delivered += try Self.markDone(settlement.delivered, by: &mine, others: others, stored: &snapshot.stored, db)
                    mine.filtered += try Self.markDone(settlement.filtered, by: &mine, others: others, stored: &snapshot.stored, db)
                    mine.deadLettered += try Self.markDone(
                        settlement.deadLetters.map(\.event.sequence), by: &mine, others: others, stored: &snapshot.stored, db)
                    try Self.advanceCursor(of: &mine, nextSeq: snapshot.stored.nextSeq, db)
                    try mine.write(db)
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
                    try db.run("DELETE FROM batches WHERE id <= ?", [record.id - historyLimit])
                    try snapshot.stored.write(db, now: now)
                    return snapshot
                }
            }
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result)
        state.withLock { state in
            guard let lease = state.leases[destination] else { return }
            if let through = settlement.through, through < lease.upperBound {
                state.leases[destination] = max(lease.lowerBound, through + 1)...lease.upperBound
            } else {
                state.leases[destination] = nil
            }
        }
        notify(.settled(settlement, depth: self.depth))
    }

    // MARK: Destinations (inside write transactions)

    /// Everything a write transaction reads and changes, applied to memory in the order
    /// the transactions ran.
    struct Snapshot {
        var stored: StoreSchema.State
        var destinations: [String: StoreSchema.DestinationState]
        var order: UInt64
        /// Set by the transactions that change the dead-letter table or its counters.
        var deadLetterCounts: StoreSchema.DeadLetterCounts?

        static func read(_ db: Database, order: UInt64) throws -> Snapshot {
            Snapshot(stored: try StoreSchema.State.read(db), destinations: try StoreSchema.DestinationState.readAll(db), order: order)
        }
    }

    static func insertDestination(_ name: String, depth: Int, _ db: Database) throws -> StoreSchema.DestinationState {
        try db.execute(
            sql: """
                INSERT INTO destinations (name, cursor, pending, delivered, dead_lettered, filtered, dropped, registered_at)
                VALUES (?, 0, ?, 0, 0, 0, 0, ?)
                """,
            arguments: [name, depth, Timestamp.now().millisecondsSince1970])
        return StoreSchema.DestinationState(name: name, cursor: 0, pending: depth)
    }

    /// Whether `sequence` is queued and not yet done for `destination`.
    private static func isPending(_ sequence: Int64, for destination: StoreSchema.DestinationState, _ db: Database) throws -> Bool {
        guard sequence > destination.cursor else { return false }
        return try Bool.fetchOne(
            db.cachedStatement(sql: """
                SELECT EXISTS (SELECT 1 FROM events WHERE seq = ?)
                    AND NOT EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = ?)
                """),
            arguments: [sequence, destination.name, sequence]) ?? false
    }

    /// Marks `sequences` done for `destination`: the events every other destination is
    /// also done with leave the queue (counted as dead-lettered if any destination
    /// dead-lettered them, else as delivered); the others are remembered as done for it.
    /// Returns how many of them were pending for it.
    private static func markDone(
        _ sequences: [Int64], by destination: inout StoreSchema.DestinationState, others: [StoreSchema.DestinationState],
        stored: inout StoreSchema.State, _ db: Database
    ) throws -> Int {
        guard !sequences.isEmpty else { return 0 }
        var marked = 0
        for range in ranges(of: sequences) {
            let lower = max(range.lowerBound, destination.cursor + 1)
            guard lower <= range.upperBound else { continue }
            let bounds: StatementArguments = [lower, range.upperBound]
            let mineArguments: StatementArguments = [destination.name]
            let pending = try Int.fetchOne(
                db.cachedStatement(sql: """
                    SELECT count(*) FROM events WHERE seq BETWEEN ? AND ?
                    AND NOT EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = events.seq)
                    """),
                arguments: bounds + mineArguments) ?? 0
            guard pending > 0 else { continue }
            marked += pending
            destination.pending -= pending
            let deleted = try removeDone(through: range.upperBound, from: lower, others: others, stored: &stored, db)
            if !others.isEmpty {
                if deleted > 0 {
                    try db.run(
                        """
                            DELETE FROM destination_done WHERE seq BETWEEN ? AND ?
                            AND NOT EXISTS (SELECT 1 FROM events WHERE seq = destination_done.seq)
                            """,
                        bounds)
                }
                if deleted < pending {
                    try db.run(
                        "INSERT OR IGNORE INTO destination_done (destination, seq) SELECT ?, seq FROM events WHERE seq BETWEEN ? AND ?",
                        mineArguments + bounds)
                }
            }
        }
        return marked
    }

    /// Removes the events in `from...through` that every destination in `others` is done
    /// with, counting them as dead-lettered if any destination dead-lettered them, else as
    /// delivered. Returns how many left.
    static func removeDone(
        through upper: Int64, from lower: Int64, others: [StoreSchema.DestinationState], stored: inout StoreSchema.State,
        _ db: Database
    ) throws -> Int {
        let doneByOthers = others.map { _ in
            "(seq <= ? OR EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = events.seq))"
        }.joined(separator: " AND ")
        var arguments: StatementArguments = [lower, upper]
        for other in others { arguments += [other.cursor, other.name] }
        let leaving = "FROM events WHERE seq BETWEEN ? AND ?" + (others.isEmpty ? "" : " AND " + doneByOthers)
        let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT count(*), coalesce(sum(length(payload)), 0),
                    coalesce(sum(EXISTS (SELECT 1 FROM dead_letters WHERE dead_letters.seq = events.seq)), 0)
                \(leaving)
                """),
            arguments: arguments)
        let checked = row.map { StoredRow($0, table: "events") }
        let (deleted, bytes, deadLettered): (Int, Int, Int) = (
            try checked?.int(0, "seq") ?? 0, try checked?.int(1, "payload") ?? 0, try checked?.int(2, "seq") ?? 0
        )
        guard deleted > 0 else { return 0 }
        try db.run("DELETE " + leaving, arguments)
        stored.depth -= deleted
        stored.bytes -= bytes
        stored.deadLettered += deadLettered
        stored.delivered += deleted - deadLettered
        return deleted
    }

    /// Moves a destination's cursor past every event it is done with at the head.
    private static func advanceCursor(of destination: inout StoreSchema.DestinationState, nextSeq: Int64, _ db: Database) throws {
        let firstPending = try Int64.fetchOne(
            db.cachedStatement(sql: """
                SELECT seq FROM events WHERE seq > ?
                AND NOT EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = events.seq)
                ORDER BY seq LIMIT 1
                """),
            arguments: [destination.cursor, destination.name])
        let cursor = (firstPending ?? nextSeq) - 1
        guard cursor > destination.cursor else { return }
        destination.cursor = cursor
        try db.run("DELETE FROM destination_done WHERE destination = ? AND seq <= ?", [destination.name, cursor])
    }
}

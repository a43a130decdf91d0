import BeaconWire
import Foundation
import GRDB

/// What an operator does to a store: dead letters listed, retried and purged; the age
/// of what waits.
extension SQLiteEventQueue {
    /// Records an operator's pause, or its end, in the store (a restarted engine starts
    /// the destination paused). Through the writer's own transactions, in their order, so
    /// the bookkeeping it keeps stays the store's.
    public func recordPause(_ paused: Bool, destination: String) async throws(StorageError) {
        let pausedAt = Timestamp.now().millisecondsSince1970
        do {
            try await writer.transactionBesideBookkeeping { db in
                if paused {
                    try db.run(
                        "INSERT OR REPLACE INTO destination_pauses (destination, paused_at) VALUES (?, ?)", [destination, pausedAt])
                } else {
                    try db.run("DELETE FROM destination_pauses WHERE destination = ?", [destination])
                }
            }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    /// Through the writer's own transactions, as a pause is.
    public func recordOperatorAction(_ action: OperatorAction) async throws(StorageError) {
        do {
            try await writer.transactionBesideBookkeeping { db in try OperatorActionRows.insert(action, db) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    /// The newest `limit` operator actions, newest first.
    public func operatorActions(limit: Int) async throws(StorageError) -> [OperatorAction] {
        do {
            return try await pool.read { db in try OperatorActionRows.newest(db, limit: limit) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    public func pausedDestinations() async throws(StorageError) -> Set<String> {
        do {
            return try await pool.read { db in try Self.readPausedDestinations(db) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    /// The paused destinations; none in a store from before `v5-pauses` (read-only readers).
    static func readPausedDestinations(_ db: Database) throws -> Set<String> {
        guard try db.tableExists("destination_pauses") else { return [] }
        var names: Set<String> = []
        for fetched in try Row.fetchAll(db.cachedStatement(sql: "SELECT destination FROM destination_pauses")) {
            names.insert(try StoredRow(fetched, table: "destination_pauses").string(0, "destination"))
        }
        return names
    }

    public func deadLetters(afterID: Int64, limit: Int) async throws(StorageError) -> [DeadLetter] {
        do {
            return try await pool.read { db in try DeadLetterRows.after(db, afterID: afterID, limit: limit) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    public func deadLetter(id: Int64) async throws(StorageError) -> DeadLetter? {
        do {
            return try await pool.read { db in try DeadLetterRows.one(db, id: id) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    public func deadLetters(matching query: DeadLetterQuery, limit: Int) async throws(StorageError) -> DeadLetterPage {
        do {
            return try await pool.read { db in try DeadLetterRows.page(db, matching: query, limit: limit) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    public func retryDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        try await changeDeadLetters(selection) { letter, snapshot, counts, db in
            guard snapshot.destinations[letter.destination] != nil else {
                return "destination \(letter.destination) is not registered in this store"
            }
            let sequence = snapshot.stored.nextSeq
            let copy = PendingEvent(
                messageId: letter.event.messageId, name: letter.event.name, payload: letter.event.payload, createdAt: .now())
            try snapshot.segments.append([copy], firstSeq: sequence, limits: self.writer.segmentLimits, db)
            snapshot.stored.nextSeq += 1
            snapshot.stored.bytes += letter.event.payloadCount
            try DeadLetterRows.recordRetry(id: letter.id, sequence: sequence, destination: letter.destination, db)
            // Every other destination is done with the copy: only this one gets it again.
            snapshot.log.queueCopy(sequence, for: letter.destination)
            counts.retried += 1
            return nil
        }
    }

    public func purgeDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        try await changeDeadLetters(selection) { _, _, counts, _ in
            counts.purged += 1
            return nil
        }
    }

    /// Runs `body` on each selected dead letter in one transaction and deletes those it
    /// accepts (`nil`; a text is the reason it refuses one, which stays).
    private func changeDeadLetters(
        _ selection: DeadLetterSelection,
        _ body: @escaping @Sendable (DeadLetter, inout Snapshot, inout StoreSchema.DeadLetterCounts, Database) throws -> String?
    ) async throws(StorageError) -> DeadLetterChange {
        let result: (Snapshot, DeadLetterChange)
        do {
            result = try await writer.transaction { db in
                var snapshot = try self.writer.bookkeeping(db, order: self.nextTransactionOrder())
                var counts = try StoreSchema.DeadLetterCounts.read(db)
                var change = DeadLetterChange()
                var letters: [DeadLetter] = []
                switch selection {
                case .all:
                    letters = try DeadLetterRows.all(db, matching: DeadLetterQuery())
                case .matching(let query):
                    letters = try DeadLetterRows.all(db, matching: query)
                case .ids(let ids):
                    var seen = Set<Int64>()
                    for id in ids where seen.insert(id).inserted {
                        if let found = try DeadLetterRows.one(db, id: id) { letters.append(found) } else { change.missing.append(id) }
                    }
                }
                // An id not found changes nothing: a script learns of it before anything moved.
                if !change.missing.isEmpty { return (snapshot, change) }
                for letter in letters {
                    if let reason = try body(letter, &snapshot, &counts, db) {
                        change.refused.append(DeadLetterChange.Refusal(id: letter.id, reason: reason))
                        continue
                    }
                    try db.run("DELETE FROM dead_letters WHERE rowid = ?", [letter.id])
                    counts.rows -= 1
                    change.done.append(letter.id)
                    change.destinations.insert(letter.destination)
                }
                if !change.done.isEmpty {
                    try snapshot.finish(db)
                    try DeadLetterRows.prune(db)
                    try counts.write(db)
                }
                snapshot.deadLetterCounts = counts
                snapshot.deadLetterRows = counts.rows
                return (snapshot, change)
            }
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result.0)
        if !result.1.done.isEmpty { notify(.deadLettersChanged(result.1, depth: depth)) }
        return result.1
    }

    public func oldestPending() async throws(StorageError) -> [String: Timestamp] {
        guard writer.state.withLock({ state in state.destinations.values.contains { $0.pending > 0 } }) else { return [:] }
        if let book = writer.keptBookkeeping {
            // Where each head is, from the kept bookkeeping: one row read per destination.
            let heads = book.destinations.keys.compactMap { name in
                book.log.pending(for: name, through: book.last).ranges.first.map { (name, $0.lowerBound) }
            }
            do {
                return try await pool.read { db in
                    var oldest: [String: Timestamp] = [:]
                    for (name, head) in heads {
                        guard let createdAt = try book.segments.createdAt(of: head, db) else { continue }
                        oldest[name] = Timestamp(millisecondsSince1970: createdAt)
                    }
                    return oldest
                }
            } catch {
                // Deliberate: a segment dropped since the bookkeeping was kept; the tables are read below.
                logger.debug("oldest pending from the kept bookkeeping failed; reading the tables", metadata: ["error": "\(error)"])
            }
        }
        do {
            return try await pool.read { db in try Self.oldestPending(db) }
        } catch {
            throw StorageError(error, path: location)
        }
    }

    /// When the oldest event each destination is not done with was committed: the head of
    /// what it has pending, one row read by its primary key.
    static func oldestPending(_ db: Database) throws -> [String: Timestamp] {
        let stored = try StoreSchema.State.read(db)
        let destinations = try StoreSchema.DestinationState.readAll(db)
        let log = try LogCursors.read(db, destinations: destinations)
        let segments = try LogSegments.read(db)
        var oldest: [String: Timestamp] = [:]
        for name in destinations.keys {
            guard let head = log.pending(for: name, through: stored.nextSeq - 1).ranges.first?.lowerBound,
                let createdAt = try segments.createdAt(of: head, db)
            else { continue }
            oldest[name] = Timestamp(millisecondsSince1970: createdAt)
        }
        return oldest
    }
}

import BeaconWire
import Foundation
import GRDB

/// What an operator does to a store: dead letters listed, retried and purged; the age
/// of what waits.
extension SQLiteEventQueue {
    public func recordPause(_ paused: Bool, destination: String) async throws(StorageError) {
        do {
            try await pool.write { db in
                if paused {
                    try db.run(
                        "INSERT OR REPLACE INTO destination_pauses (destination, paused_at) VALUES (?, ?)",
                        [destination, Timestamp.now().millisecondsSince1970])
                } else {
                    try db.run("DELETE FROM destination_pauses WHERE destination = ?", [destination])
                }
            }
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
            guard var mine = snapshot.destinations[letter.destination] else {
                return "destination \(letter.destination) is not registered in this store"
            }
            let sequence = snapshot.stored.nextSeq
            try EventRowInserter(db).insert(
                seq: sequence, messageId: letter.event.messageId, name: letter.event.name, payload: letter.event.payload,
                createdAt: Timestamp.now().millisecondsSince1970)
            snapshot.stored.nextSeq += 1
            snapshot.stored.depth += 1
            snapshot.stored.bytes += letter.event.payload.count
            try DeadLetterRows.recordRetry(id: letter.id, sequence: sequence, destination: letter.destination, db)
            mine.pending += 1
            try mine.write(db)
            snapshot.destinations[letter.destination] = mine
            // Every other destination is done with the copy: only this one gets it again.
            for other in snapshot.destinations.keys where other != letter.destination {
                try db.run("INSERT OR IGNORE INTO destination_done (destination, seq) VALUES (?, ?)", [other, sequence])
            }
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
            result = try await pool.writeWithoutTransaction { db in
                try db.inCachedTransaction {
                    var snapshot = try Snapshot.read(db, order: self.nextTransactionOrder())
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
                        try DeadLetterRows.prune(db)
                        try counts.write(db)
                        try snapshot.stored.write(db, now: Timestamp.now().millisecondsSince1970)
                    }
                    snapshot.deadLetterCounts = counts
                    return (snapshot, change)
                }
            }
        } catch {
            throw StorageError(error, path: location)
        }
        apply(result.0)
        if !result.1.done.isEmpty { notify(.deadLettersChanged(result.1, depth: depth)) }
        return result.1
    }

    public func oldestPending() async throws(StorageError) -> [String: Timestamp] {
        let cursors = state.withLock { state in
            state.destinations.values.filter { $0.pending > 0 }.map { ($0.name, $0.cursor) }
        }
        guard !cursors.isEmpty else { return [:] }
        do {
            return try await pool.read { db in
                var oldest: [String: Timestamp] = [:]
                for (name, cursor) in cursors {
                    // The head of what it is not done with: the primary key, then at most the
                    // few rows above its cursor it is already done with.
                    let statement = try db.cachedStatement(sql: """
                        SELECT created_at FROM events
                        WHERE seq > ? AND NOT EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = events.seq)
                        ORDER BY seq LIMIT 1
                        """)
                    if let row = try Row.fetchOne(statement, arguments: [cursor, name]) {
                        oldest[name] = Timestamp(millisecondsSince1970: try StoredRow(row, table: "events").timestamp(0, "created_at"))
                    }
                }
                return oldest
            }
        } catch {
            throw StorageError(error, path: location)
        }
    }
}

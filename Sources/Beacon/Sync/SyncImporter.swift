import BeaconWire
import Foundation
import GRDB
import Logging

/// Applies one-way sync responses (see ``SyncFeed`` for the shape) to a Beacon store:
/// upserts (server values win), deletions and the new version token, all in one
/// transaction. A refused or failed response changes nothing; applying the same response
/// twice leaves the store as applying it once did.
///
/// ```swift
/// let importer = try SyncImporter(path: "beacon.sqlite")
/// let result = try importer.apply(Array(responseData))
/// let next = importer.versionToken          // send as ?since= on the next poll
/// ```
///
/// Beside an engine in the same process, build it on the engine's queue
/// (``init(queue:logger:)``): its transactions then go through the queue's one writer,
/// in its order, instead of a second connection writing the same file.
public final class SyncImporter: Sendable {
    /// The `meta` key holding the token.
    public static let tokenKey = "sync.version_token"

    /// The store file.
    public let path: String
    /// Reads (the queue's pool when built on a queue).
    private let pool: DatabasePool
    /// Where its transactions run.
    private let writes: Writes
    private let logger: Logger

    /// A connection of its own (another process's store, `beacon sync`), or the writer of
    /// the queue open in this process.
    private enum Writes: Sendable {
        case ownConnection
        case queueWriter(SQLiteQueueWriter)
    }

    /// Opens (creating and migrating if needed) the store at `path`; the event queue may
    /// have the same file open, in another process.
    public init(path: String, logger: Logger = Logger(label: "beacon.sync")) throws(SyncError) {
        self.path = path
        self.logger = logger
        writes = .ownConnection
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(2)
        configuration.label = "beacon.sync"
        do {
            pool = try StoreSchema.openPool(path: path, configuration: configuration, patience: .seconds(2))
            try StoreSchema.migrate(pool, path: path)
        } catch {
            throw .storage(StorageError(error, path: path))
        }
    }

    /// Applies feeds to the store of `queue` (which opened and migrated it), through the
    /// queue's writer: the one component that writes the store in this process.
    public init(queue: SQLiteEventQueue, logger: Logger = Logger(label: "beacon.sync")) {
        path = queue.location
        self.logger = logger
        pool = queue.pool
        writes = .queueWriter(queue.writer)
    }

    /// Runs `body` in one write transaction.
    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        switch writes {
        case .ownConnection: return try pool.write(body)
        case .queueWriter(let writer): return try writer.transactionBesideBookkeeping(body)
        }
    }

    /// ``write(_:)`` without blocking a thread of the cooperative pool.
    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        switch writes {
        case .ownConnection: return try await pool.write(body)
        case .queueWriter(let writer): return try await writer.transactionBesideBookkeeping(body)
        }
    }

    /// Checks and applies a response in one transaction.
    @discardableResult
    public func apply(_ data: [UInt8]) throws(SyncError) -> SyncResult {
        let feed = try SyncImporter.genericFeed(data)
        do {
            return try write { db in try SyncImporter.write(feed, db) }
        } catch {
            throw failed(error)
        }
    }

    /// Checks and applies a response in one transaction, without blocking a thread of
    /// the cooperative pool.
    @discardableResult
    public func apply(_ data: [UInt8]) async throws(SyncError) -> SyncResult {
        let feed = try SyncImporter.genericFeed(data)
        do {
            return try await write { db in try SyncImporter.write(feed, db) }
        } catch {
            throw failed(error)
        }
    }

    /// A generic feed, checked; one that touches the remote configuration's collection is
    /// refused, since only a config feed's checks may write it.
    private static func genericFeed(_ data: [UInt8]) throws(SyncError) -> SyncFeed {
        let feed = try SyncFeed(json: data)
        let reserved = RemoteConfigFeed.collection
        if feed.upserts.contains(where: { $0.collection == reserved }) || feed.deletions.contains(where: { $0.collection == reserved }) {
            throw .reservedCollection(reserved)
        }
        return feed
    }

    /// Applies an already checked feed (remote configuration builds one).
    @discardableResult
    func apply(feed: SyncFeed) async throws(SyncError) -> SyncResult {
        do {
            return try await write { db in try SyncImporter.write(feed, db) }
        } catch {
            throw failed(error)
        }
    }

    /// The records of a collection and the token, read together without blocking a thread.
    func snapshot(of collection: String) async throws(SyncError) -> (records: [SyncRecord], token: String?) {
        do {
            return try await pool.read { db in
                let rows = try Row.fetchAll(
                    db, sql: "SELECT id, body FROM sync_records WHERE collection = ? ORDER BY id", arguments: [collection])
                let records = try rows.map { row in
                    let body: Data = row[1]
                    return SyncRecord(collection: collection, id: row[0], body: try JSONDecoder().decode(JSONValue.self, from: body))
                }
                let token = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.tokenKey])
                return (records, token)
            }
        } catch {
            throw .storage(StorageError(error, path: path))
        }
    }

    /// The stored token (`nil` before the first successful apply).
    public var versionToken: String? {
        get throws(SyncError) {
            try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.tokenKey]) }
        }
    }

    /// The records of a collection, by id.
    public func records(in collection: String) throws(SyncError) -> [SyncRecord] {
        try read { db in
            var links: [String: [String: SyncLink]] = [:]
            let linkRows = try Row.fetchAll(
                db, sql: "SELECT id, field, target_collection, target_id FROM sync_links WHERE collection = ?",
                arguments: [collection])
            for row in linkRows {
                links[row[0], default: [:]][row[1]] = SyncLink(collection: row[2], id: row[3])
            }
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, body FROM sync_records WHERE collection = ? ORDER BY id", arguments: [collection])
            return try rows.map { row in
                let id: String = row[0]
                let body: Data = row[1]
                let value = try JSONDecoder().decode(JSONValue.self, from: body)
                return SyncRecord(collection: collection, id: id, body: value, links: links[id] ?? [:])
            }
        }
    }

    /// The names of the collections holding records.
    public func collections() throws(SyncError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT collection FROM sync_records ORDER BY collection") }
    }

    // MARK: Internals

    private func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SyncError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw .storage(StorageError(error, path: path))
        }
    }

    private func failed(_ error: any Error) -> SyncError {
        let syncError = SyncError.storage(StorageError(error, path: path))
        logger.error("sync not applied; the store is unchanged", metadata: ["error": "\(syncError)"])
        return syncError
    }

    /// The writes of one response, inside the caller's transaction (``write(_:)`` runs
    /// its closure in one): upserts, then deletions (a deletion wins over an upsert of
    /// the same id in the same response), then the token.
    static func write(_ feed: SyncFeed, _ db: Database) throws -> SyncResult {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var result = SyncResult(versionToken: feed.versionToken)
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO sync_records (collection, id, body, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
            """)
        let clearLinks = try db.cachedStatement(sql: "DELETE FROM sync_links WHERE collection = ? AND id = ?")
        let link = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO sync_links (collection, id, field, target_collection, target_id) VALUES (?, ?, ?, ?, ?)
            """)
        for record in feed.upserts {
            try upsert.execute(arguments: [record.collection, record.id, try encoder.encode(record.body), now])
            try clearLinks.execute(arguments: [record.collection, record.id])
            for (field, target) in record.links {
                try link.execute(arguments: [record.collection, record.id, field, target.collection, target.id])
            }
            result.upserted[record.collection, default: 0] += 1
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM sync_records WHERE collection = ? AND id = ?")
        let unlink = try db.cachedStatement(sql: """
            DELETE FROM sync_links WHERE (collection = ? AND id = ?) OR (target_collection = ? AND target_id = ?)
            """)
        for (collection, ids) in feed.deletions {
            var removed = 0
            for id in ids {
                try delete.execute(arguments: [collection, id])
                removed += db.changesCount
                try unlink.execute(arguments: [collection, id, collection, id])
            }
            result.deleted[collection, default: 0] += removed
        }
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            arguments: [tokenKey, feed.versionToken])
        return result
    }
}

import BeaconWire
import Foundation
import GRDB

/// Reads a Beacon store without writing to it: for `beacon status` and for
/// `beacon monitor`, which watches another process's queue (WAL readers never block the
/// writer). Polling is cheap: the counters live in one row.
public final class StoreReader: Sendable {
    /// The store's path.
    public let path: String
    private let pool: DatabasePool

    /// Opens an existing store read-only. Throws if the file is missing or not a store.
    public init(path: String) throws(StorageError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw StorageError(kind: .ioError, message: "\(path) does not exist; check the path or run 'beacon track --db \(path)' first")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "beacon.reader"
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            let isStore = try pool.read { db in try db.tableExists("queue_state") }
            guard isStore else {
                throw StorageError(kind: .other, message: "\(path) is an SQLite file but not a Beacon store")
            }
            try pool.read { db in try StoreSchema.refuseNewerSchema(db, migrator: StoreSchema.migrator(), path: path) }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(error, path: path)
        }
    }

    /// What the store holds now.
    public func status(batchLimit: Int = 20, deadLetterLimit: Int = 20) async throws(StorageError) -> StoreStatus {
        do {
            return try await pool.read { db in
                let state = try StoreSchema.State.read(db)
                let deadCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM dead_letters") ?? 0
                let oldest = try Row.fetchOne(db, sql: "SELECT created_at FROM events ORDER BY seq LIMIT 1").map { row in
                    try StoredRow(row, table: "events").timestamp(0, "created_at")
                }
                // A store last opened by an older Beacon has no destinations table yet.
                let destinations = try db.tableExists("destinations") ? StoreSchema.DestinationState.readAll(db) : [:]
                return StoreStatus(
                    path: self.path, depth: state.depth, bytes: state.bytes, deadLetterCount: deadCount,
                    totals: state.totals, oldestEvent: oldest.map(Timestamp.init(millisecondsSince1970:)),
                    recentBatches: try SQLiteEventQueue.readBatches(db, limit: batchLimit),
                    recentDeadLetters: try SQLiteEventQueue.readDeadLetters(db, limit: deadLetterLimit),
                    destinations: destinations.mapValues(\.depth))
            }
        } catch {
            throw StorageError(error, path: path)
        }
    }
}

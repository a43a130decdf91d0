import BeaconWire
import GRDB

extension SQLiteEventQueue {
    /// When the oldest event each destination is not done with reached the queue
    /// (`createdAt`), by destination name; a destination with nothing pending is absent.
    /// One indexed read per destination: the first event past its cursor that it has not
    /// settled ahead of order.
    func oldestPendingTimes() async throws(StorageError) -> [String: Timestamp] {
        let cursors = state.withLock { state in state.destinations.mapValues(\.cursor) }
        guard !cursors.isEmpty else { return [:] }
        do {
            return try await pool.read { db in
                var times: [String: Timestamp] = [:]
                let statement = try db.cachedStatement(sql: """
                    SELECT created_at FROM events
                    WHERE seq > ? AND NOT EXISTS (SELECT 1 FROM destination_done WHERE destination = ? AND seq = events.seq)
                    ORDER BY seq LIMIT 1
                    """)
                for (name, cursor) in cursors {
                    guard let row = try Row.fetchOne(statement, arguments: [cursor, name]) else { continue }
                    // Read back from the file: only an integer within the years 1970-9999 is a time Beacon wrote.
                    let value: DatabaseValue = row[0]
                    guard case .int64(let created) = value.storage, StoreSchema.timestampRange.contains(created) else {
                        throw StoreDamage(
                            table: "events", column: "created_at", found: "\(value)",
                            expected: "milliseconds since 1970, up to the year 9999")
                    }
                    times[name] = Timestamp(millisecondsSince1970: created)
                }
                return times
            }
        } catch {
            throw StorageError(error, path: location)
        }
    }
}

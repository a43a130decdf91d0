import BeaconWire
import Foundation
import GRDB

/// Reads the head and the tail of a store's queue for a ``PendingEventQuery``: the
/// cursors say which sequence numbers are pending, and each segment is read by its
/// primary key from either end, `LIMIT`ed, so a page costs about the same at any depth.
/// Read-only, in a WAL read transaction: the writer and the drain never wait for it.
enum PendingEventRows {
    static func page(_ db: Database, query: PendingEventQuery) throws -> PendingEventsPage {
        guard try db.tableExists("segments") else {
            throw StorageError(
                kind: .other,
                message: "this store was written by a Beacon before 0.3 (no segmented log) and a reader does not upgrade it: open it once with this version (beacon track or agent) to list its events")
        }
        let state = try StoreSchema.State.read(db)
        let destinations = try StoreSchema.DestinationState.readAll(db)
        let log = try LogCursors.read(db, destinations: destinations)
        let last = state.nextSeq - 1
        var wanted: SequenceRanges
        let known = destinations.keys.sorted()
        if let name = query.destination {
            // Named wrong: no events, and the names there are, for the caller to say so.
            guard destinations[name] != nil else {
                return PendingEventsPage(pending: 0, head: [], tail: [], matching: 0, destinations: known)
            }
            wanted = log.pending(for: name, through: last)
        } else {
            wanted = log.queued(through: last)
        }
        if let after = query.after {
            // Clamped to the log's range: a caller's value never overflows the arithmetic.
            wanted = wanted.clamped(after < Int64.max ? max(after, 0) + 1 : Int64.max, Int64.max)
        }
        let segments = try LogSegments.read(db)
        let needle = query.containing.flatMap { $0.isEmpty ? nil : Data($0.utf8) }
        let head = try read(wanted, segments, newestFirst: false, limit: query.limit, containing: needle, db)
        // The tail is what lies after the head: nothing when the head found fewer than it
        // could (it read everything there is).
        let rest = head.count < query.limit
            ? SequenceRanges() : wanted.clamped((head.last?.sequence ?? 0) + 1, Int64.max)
        let tail = Array(try read(rest, segments, newestFirst: true, limit: query.limit, containing: needle, db).reversed())
        let pending = Int(clamping: wanted.count)
        let matching: Int? = if needle == nil {
            pending
        } else if head.count < query.limit || tail.count < query.limit {
            head.count + tail.count
        } else {
            nil
        }
        return PendingEventsPage(pending: pending, head: head, tail: tail, matching: matching, destinations: known)
    }

    /// Up to `limit` events of `wanted` (those containing `needle`, when given), from the
    /// oldest or the newest, in the order read.
    private static func read(
        _ wanted: SequenceRanges, _ segments: LogSegments, newestFirst: Bool, limit: Int, containing needle: Data?, _ db: Database
    ) throws -> [PendingEventRecord] {
        var found: [PendingEventRecord] = []
        let ranges = newestFirst ? Array(wanted.ranges.reversed()) : wanted.ranges
        for range in ranges {
            let parts = segments.covering(range.lowerBound, range.upperBound)
            for part in newestFirst ? Array(parts.reversed()) : parts {
                let remaining = limit - found.count
                guard remaining > 0 else { return found }
                let filter = needle == nil ? "" : " AND instr(payload, ?) > 0"
                let statement = try db.cachedStatement(sql: """
                    SELECT seq, message_id, name, created_at, payload FROM \(part.table)
                    WHERE seq BETWEEN ? AND ?\(filter) ORDER BY seq \(newestFirst ? "DESC" : "ASC") LIMIT ?
                    """)
                var arguments: StatementArguments = [part.lower, part.upper]
                if let needle { arguments += [needle] }
                arguments += [remaining]
                let rows = try Row.fetchCursor(statement, arguments: arguments)
                while let next = try rows.next() {
                    let row = StoredRow(next, table: part.table)
                    found.append(PendingEventRecord(
                        sequence: try row.int64(0, "seq", in: 1...(1 << 62), meaning: "a sequence number in 1...2^62"),
                        messageId: try row.string(1, "message_id"), name: try row.string(2, "name"),
                        createdAt: Timestamp(millisecondsSince1970: try row.timestamp(3, "created_at")),
                        payload: Array(try row.bytes(4, "payload"))))
                }
            }
        }
        return found
    }
}

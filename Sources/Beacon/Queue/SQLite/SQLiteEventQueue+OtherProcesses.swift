import GRDB

extension SQLiteEventQueue {
    /// Events another process committed: the store's `next_seq` moved past the one this
    /// queue knows. The counters are then taken in a write transaction, so they are
    /// ordered with this queue's own commits and settles (a read could be older than a
    /// settle that lands meanwhile), and the listeners hear of the new events.
    public func refreshFromOtherProcesses() async -> Int {
        let known = writer.state.withLock { $0.stored.nextSeq }
        let inStore: Int64?
        do {
            inStore = try await pool.read { db in
                try Int64.fetchOne(db.cachedStatement(sql: "SELECT next_seq FROM queue_state WHERE id = 1"))
            }
        } catch {
            return 0  // a failing store shows in the commits and reads that matter; this look tries again later
        }
        guard let inStore, inStore > known else { return 0 }
        let snapshot: Snapshot
        do {
            // Another connection wrote: `bookkeeping` sees it in the pager's data version and reads the tables.
            snapshot = try await writer.transaction { db in
                (try self.writer.bookkeeping(db, order: self.nextTransactionOrder()), ())
            }.0
        } catch {
            return 0  // as above: the next look tries again; the store's own writes report a fault
        }
        apply(snapshot)
        let (found, overflow) = snapshot.stored.nextSeq.subtractingReportingOverflow(known)
        let count = overflow ? 0 : Int(clamping: found)
        guard count > 0 else { return 0 }
        notify(.committed(count: count, depth: depth))
        return count
    }
}

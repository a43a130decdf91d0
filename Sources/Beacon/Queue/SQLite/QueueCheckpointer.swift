import Dispatch
import GRDBSQLite
import Synchronization

/// Checkpoints the queue's write-ahead log on a connection and a thread of their own, so
/// that the group commit (or settle) that fills the log does not stop to copy it into the
/// database and fsync both files. Measured with the enqueue benchmark: SQLite's automatic
/// checkpoint, run by the writer every 1,000 pages, took about 40 % of the writer's time.
///
/// The writer gets a WAL hook in place of SQLite's automatic checkpoint (``install(on:)``):
/// after each commit it asks for a PASSIVE checkpoint here once the log passes
/// ``backgroundPages``, and copies the log itself, as SQLite would, past ``inlinePages``
/// (the background could not keep up, or cannot open its connection): the log stays
/// bounded either way. A PASSIVE checkpoint never blocks the writer or the readers; the
/// writer starts the log over once a checkpoint has copied all of it. Durability does not
/// change: a commit is in the log before its waiters hear of it, wherever the copy runs.
///
/// The collector's store has the same arrangement (`WALCheckpointer` in BeaconCollector);
/// the two modules may not import each other, and this one knows the queue's closing.
final class QueueCheckpointer: Sendable {
    /// Log pages past which the background copies (SQLite's automatic default: 1,000 pages, 4 MB).
    static let backgroundPages: Int32 = 1_000
    /// Log pages past which the writer copies itself.
    static let inlinePages: Int32 = 4_000

    private let path: String
    private let queue = DispatchQueue(label: "beacon.queue.checkpoint")
    /// The checkpoint connection (opened on first use, never creating the file) and
    /// whether the queue closed; touched on `queue`.
    private let connection = Mutex<(handle: OpaquePointer?, closed: Bool)>((nil, false))
    /// A background checkpoint is requested or running.
    private let pending = Mutex(false)
    /// The writer's commits fail: no background checkpoint runs until one succeeds again.
    private let failing = Mutex(false)

    init(path: String) {
        self.path = path
    }

    deinit {
        connection.withLock { state in
            if let handle = state.handle { sqlite3_close_v2(handle) }
            state.handle = nil
        }
    }

    /// Replaces SQLite's automatic checkpoint on `writer`. The hook holds the
    /// checkpointer weakly: once the queue is gone it does nothing.
    func install(on writer: OpaquePointer) {
        let context = Unmanaged.passRetained(WeakQueueCheckpointer(self)).toOpaque()  // one small box per queue, never freed
        sqlite3_wal_hook(writer, { context, connection, name, pages in
            guard let context else { return SQLITE_OK }
            let box = Unmanaged<WeakQueueCheckpointer>.fromOpaque(context).takeUnretainedValue()
            box.checkpointer?.committed(logPages: pages, connection: connection, name: name)
            return SQLITE_OK
        }, context)
    }

    /// Called on the writer after each commit, with the pages now in the log.
    private func committed(logPages: Int32, connection: OpaquePointer?, name: UnsafePointer<CChar>?) {
        if logPages >= Self.inlinePages, let connection {
            // What SQLite's automatic checkpoint does; an error (a full disk) leaves the log
            // as it is, and the next commit tries again, as SQLite's own would.
            if sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_BUSY {
                // The background checkpoint holds the lock and copies only what was in the
                // log when it began: while the commits outrun it, the log grew past the bound
                // (to 40 MB in a 30 MB burst on a loaded machine). Wait for it, then copy the
                // rest here, between commits, so the next commit starts the log over.
                queue.sync {}
                _ = sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return
        }
        guard logPages >= Self.backgroundPages else { return }
        let idle = pending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        if idle { queue.async { self.checkpoint() } }
    }

    /// The writer's commits fail (`true`) or work again (`false`). While they fail, a
    /// checkpoint asked for earlier does not run, as SQLite's automatic checkpoint stopped
    /// with the writer's commits: a store that refuses writes is not written to from
    /// another thread. (What it cannot prevent: ext4 drops the pages it was writing back
    /// at the instant it aborts, so with `synchronous=NORMAL` events committed just before
    /// a filesystem fails can be lost; ``SQLiteEventQueue/Durability/powerLoss`` has each
    /// commit on disk before it is reported.)
    func storeFailing(_ isFailing: Bool) {
        failing.withLock { $0 = isFailing }
    }

    /// One PASSIVE checkpoint (on `queue`). A failure (the file removed, a full disk) is
    /// left to the writer: its own commits report the store's condition, and past
    /// ``inlinePages`` it copies the log itself.
    private func checkpoint() {
        defer { pending.withLock { $0 = false } }
        if failing.withLock({ $0 }) { return }
        connection.withLock { state in
            guard !state.closed else { return }
            if state.handle == nil {
                var opened: OpaquePointer?
                // Read once: a connection that has not read the database has not opened its
                // log, and a checkpoint on it would answer OK having copied nothing.
                guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                    sqlite3_exec(opened, "SELECT 1 FROM sqlite_master LIMIT 1", nil, nil, nil) == SQLITE_OK
                else {
                    sqlite3_close_v2(opened)
                    return
                }
                state.handle = opened
            }
            _ = sqlite3_wal_checkpoint_v2(state.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }

    /// Returns once the checkpoints asked for so far have run (they run one at a time on
    /// `queue`). For tests that read the log's size.
    func finished() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// Closes the connection once a checkpoint under way is done, and runs no more: the
    /// queue is closing. Returns at once.
    func close() {
        queue.async {
            self.connection.withLock { state in
                if let handle = state.handle { sqlite3_close_v2(handle) }
                state = (nil, true)
            }
        }
    }
}

/// The WAL hook's context: a weak reference, so a hook outliving its queue is harmless.
private final class WeakQueueCheckpointer: @unchecked Sendable {
    // @unchecked: `checkpointer` is set once in `init`; weak loads are atomic.
    weak var checkpointer: QueueCheckpointer?

    init(_ checkpointer: QueueCheckpointer) { self.checkpointer = checkpointer }
}

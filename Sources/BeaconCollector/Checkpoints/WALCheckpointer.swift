import Dispatch
import Foundation
import GRDBSQLite
import Synchronization

/// Checkpoints a SQLite store's write-ahead log from a connection of its own, on a
/// thread of its own, so the commit that fills the log does not pay for the checkpoint
/// (two fsyncs and the copy) before its request is answered.
///
/// The writer's connection gets a WAL hook in place of SQLite's automatic checkpoint
/// (``install(on:)``): with ``CollectorCheckpointPolicy/background(pages:)``, after each
/// commit it asks for a checkpoint once the log passes `pages`, and runs one itself past
/// `4 × pages` when none is running (the background could not keep up); with
/// ``CollectorCheckpointPolicy/onCommit(pages:)`` it does what SQLite's own does, timed. A
/// PASSIVE checkpoint never blocks the writer or the readers; the writer starts the log
/// over once a checkpoint has copied all of it. Under a steady stream of commits a
/// checkpoint may end a little behind the log, which then grows until one catches up in
/// a pause between commits (or, past `4 × pages`, a commit copies the rest).
final class WALCheckpointer: Sendable {
    private let path: String
    /// Log pages past which a commit checkpoints itself.
    private let inlinePages: Int32
    /// Log pages past which the background checkpoints (nil: never).
    private let backgroundPages: Int32?
    private let timing: StoreTiming?
    private let queue = DispatchQueue(label: "beacon.collector.checkpoint")
    /// The checkpoint connection, opened on first use; touched only on `queue`.
    private let connection = Mutex<OpaquePointer?>(nil)
    /// A checkpoint is requested or running.
    private let pending = Mutex(false)

    init(path: String, policy: CollectorCheckpointPolicy, timing: StoreTiming?) {
        self.path = path
        self.timing = timing
        switch policy {
        case .onCommit(let pages):
            inlinePages = Int32(clamping: max(1, pages))
            backgroundPages = nil
        case .background(let pages):
            inlinePages = Int32(clamping: max(1, pages).multipliedReportingOverflow(by: 4).partialValue)
            backgroundPages = Int32(clamping: max(1, pages))
        }
    }

    deinit {
        connection.withLock { handle in
            if let handle { sqlite3_close_v2(handle) }
            handle = nil
        }
    }

    /// Replaces SQLite's automatic checkpoint on `writer` (the store's writing connection)
    /// with this checkpointer. The hook holds the checkpointer weakly: a store closed
    /// later leaves a hook that does nothing.
    func install(on writer: OpaquePointer) {
        let context = Unmanaged.passRetained(WeakCheckpointer(self)).toOpaque()  // one small box per store, never freed
        sqlite3_wal_hook(writer, { context, connection, name, pages in
            guard let context else { return SQLITE_OK }
            let box = Unmanaged<WeakCheckpointer>.fromOpaque(context).takeUnretainedValue()
            box.checkpointer?.committed(logPages: pages, connection: connection, name: name)
            return SQLITE_OK
        }, context)
    }

    /// Called on the writer after each commit, with the pages now in the log.
    private func committed(logPages: Int32, connection: OpaquePointer?, name: UnsafePointer<CChar>?) {
        guard logPages >= (backgroundPages ?? inlinePages) else { return }
        // Claims the checkpoint: none starts while another runs (a second one would only
        // find the checkpoint lock taken).
        let claim = {
            self.pending.withLock { pending in
                defer { pending = true }
                return !pending
            }
        }
        if logPages >= inlinePages, let connection {
            // As SQLite's automatic checkpoint does. With the background, only when the log
            // ran far ahead under a steady stream of commits: the background then copied
            // most of it, this copies the rest, and the next transaction starts the log over.
            // A background checkpoint under way copies only what the log held when it began:
            // wait for it, or the log grows past this bound while the commits outrun it.
            if !claim() {
                queue.sync {}
                guard claim() else { return }
            }
            let start = ContinuousClock.now
            sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            timing?.record(checkpoint: .now - start, inCommit: true, copiedPages: 0)
            pending.withLock { $0 = false }
            return
        }
        guard claim() else { return }
        queue.async { self.checkpoint() }
    }

    /// Runs one PASSIVE checkpoint (on `queue`).
    private func checkpoint() {
        defer { pending.withLock { $0 = false } }
        let start = ContinuousClock.now
        let done = connection.withLock { handle -> Int? in
            if handle == nil {
                var opened: OpaquePointer?
                // A connection that has not read the database has not opened its log yet, and
                // SQLite 3.40 then answers a checkpoint with OK having done nothing: read once.
                guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                    sqlite3_exec(opened, "SELECT 1 FROM sqlite_master LIMIT 1", nil, nil, nil) == SQLITE_OK
                else {
                    sqlite3_close_v2(opened)
                    return nil
                }
                handle = opened
            }
            var copied: Int32 = 0
            guard sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, &copied) == SQLITE_OK else { return nil }
            return Int(copied)
        }
        if let done { timing?.record(checkpoint: .now - start, inCommit: false, copiedPages: done) }
    }

    /// Waits until the checkpoints asked for so far have run.
    func finish() async {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
    }
}

/// The WAL hook's context: a weak reference, so the hook outliving its store is harmless.
private final class WeakCheckpointer: @unchecked Sendable {
    // @unchecked: `checkpointer` is set once in `init`; weak loads are atomic.
    weak var checkpointer: WALCheckpointer?

    init(_ checkpointer: WALCheckpointer) { self.checkpointer = checkpointer }
}

/// The store's side of a ``GroupCommitBuffer``: it commits the groups the buffer hands
/// it, on the buffer's writer thread, and hears every ``GroupCommitBuffer/Report``.
/// Given to the buffer at `init`, held strongly: it must not hold the buffer.
protocol GroupCommitWriter: AnyObject, Sendable {
    /// Writes `group` in one transaction; returns the error if it was not committed.
    func commit(_ group: [PendingEvent]) -> StorageError?

    /// What happened to the buffer's events. Keep it short and non-blocking: it runs on
    /// the writer's thread, or on an `append` caller's for drops.
    func bufferReported(_ report: GroupCommitBuffer.Report)
}

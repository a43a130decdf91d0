import Beacon

extension TrackingObserver {
    /// The first snapshot (the current one included) that satisfies `condition`, or `nil`
    /// when `limit` passes first. The observer's own publishing wakes the wait; the limit
    /// only bounds it, so that a test fails with its message instead of hanging.
    public func firstSnapshot(
        within limit: Duration, where condition: @escaping @Sendable (EngineSnapshot) -> Bool
    ) async -> EngineSnapshot? {
        await withTaskGroup(of: EngineSnapshot?.self) { group in
            group.addTask { await self.firstSnapshot(where: condition) }
            group.addTask {
                do {
                    try await Task.sleep(for: limit)
                } catch {
                    // Cancelled: the snapshot came first.
                }
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }
}

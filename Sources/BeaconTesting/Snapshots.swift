import Beacon

extension TrackingObserver {
    /// Returns the first snapshot (the current one included) that satisfies `condition`.
    /// Tests use it to wait for the engine without sleeping.
    public func firstSnapshot(where condition: @Sendable (EngineSnapshot) -> Bool) async -> EngineSnapshot? {
        for await snapshot in snapshots() where condition(snapshot) {
            return snapshot
        }
        return nil
    }
}

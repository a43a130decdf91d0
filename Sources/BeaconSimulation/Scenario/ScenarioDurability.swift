/// What the engine's queue must survive without losing an acknowledged event.
public enum ScenarioDurability: String, Sendable, Hashable, CaseIterable {
    /// `"process-crash"` (default): events survive a kill -9 of the engine process; SQLite
    /// may skip the fsync that only a power loss would need.
    case processCrash = "process-crash"
    /// `"power-loss"`: events survive a power loss too; every commit is synced to disk.
    case powerLoss = "power-loss"
}

import ArgumentParser
import Beacon
import BeaconDashboard

/// The checks `demo` and `agent` share for the flags that set an engine's live settings.
enum EngineFlags {
    /// Refuses a `--policy` the parser does not read and a `--batch-size` out of range.
    static func validate(policy: String, batchSize: Int) throws {
        do {
            _ = try FlushPolicy(parsing: policy)
        } catch {
            throw ValidationError("--policy: \(error)")
        }
        guard DashboardLimits.batchSizes.contains(batchSize) else {
            throw ValidationError("--batch-size must be 1...10000, not \(batchSize)")
        }
    }
}

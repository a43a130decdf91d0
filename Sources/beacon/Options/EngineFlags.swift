import ArgumentParser
import Beacon
import BeaconDashboard

/// The checks `demo` and `agent` share for the flags that set an engine's settings.
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

    /// Refuses a `--max-concurrent-requests` outside ``Destination/maxConcurrentRequestsRange``.
    static func validate(maxConcurrentRequests: Int) throws {
        let range = Destination.maxConcurrentRequestsRange
        guard range.contains(maxConcurrentRequests) else {
            throw ValidationError("--max-concurrent-requests must be \(range.lowerBound)...\(range.upperBound), not \(maxConcurrentRequests)")
        }
    }

    /// The help of `--max-concurrent-requests`, the same for every command that takes it.
    static let maxConcurrentRequestsHelp = ArgumentHelp(
        "Batches in flight at once per destination (1...16).",
        discussion: "1 (the default) sends one batch at a time, in order. Above 1, up to N consecutive batches go out at once and each is settled on its own; a failure backs off once, and while a 413 split is in force batches go one at a time.")
}

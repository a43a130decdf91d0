import Beacon

/// The latest snapshot from the stream, kept for the run loop (which draws only the
/// newest and skips any it had no time for).
@MainActor
final class SnapshotInbox {
    private(set) var latest: EngineSnapshot?
    /// Goes up by one with every snapshot received.
    private(set) var generation = 0
    private(set) var isFinished = false
    private var task: Task<Void, Never>?

    /// Starts reading `snapshots` on the main actor.
    init(_ snapshots: AsyncStream<EngineSnapshot>) {
        task = Task { @MainActor [weak self] in
            for await snapshot in snapshots {
                guard let self else { return }
                self.latest = snapshot
                self.generation &+= 1
            }
            self?.isFinished = true
        }
    }

    /// Stops reading.
    func cancel() {
        task?.cancel()
        task = nil
    }
}

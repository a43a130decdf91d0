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

    /// Starts reading `snapshots` on the main actor; `onArrival` runs after each one (and
    /// once when the stream ends) to wake the run loop.
    init(_ snapshots: AsyncStream<EngineSnapshot>, onArrival: @escaping @MainActor () -> Void) {
        // The task's own closure holds no snapshot: Swift 6.3's release build of a task
        // whose first frame held one (544 bytes) crashed in `Task.init`, copying from a
        // null pointer, as every dashboard started. The loop runs in a function it calls.
        task = Task { @MainActor [weak self] in
            await Self.read(snapshots) { [weak self] snapshot in
                guard let self else { return false }
                self.latest = snapshot
                self.generation &+= 1
                onArrival()
                return true
            }
            self?.isFinished = true
            onArrival()
        }
    }

    /// Hands each of `snapshots` to `keep` until the stream ends or `keep` returns `false`.
    private static func read(_ snapshots: AsyncStream<EngineSnapshot>, _ keep: (EngineSnapshot) -> Bool) async {
        for await snapshot in snapshots {
            guard keep(snapshot) else { return }
        }
    }

    /// Stops reading.
    func cancel() {
        task?.cancel()
        task = nil
    }
}

import Synchronization

/// Bounded waits for tasks that may not stop promptly (a send hanging on a slow
/// collector): the demo's exit must not wait on them for ever.
enum DemoWait {
    /// Whether `task` finished within `timeout`. Waiting on a task's value cannot be
    /// cancelled, so the wait and the timer race in two tasks and the first to finish
    /// answers.
    static func finished<Success: Sendable, Failure: Error>(_ task: Task<Success, Failure>, within timeout: Duration) async -> Bool {
        let once = Once()
        return await withCheckedContinuation { continuation in
            let timer = Task {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return  // cancelled: the task finished first
                }
                if once.claim() { continuation.resume(returning: false) }
            }
            Task {
                _ = await task.result
                timer.cancel()
                if once.claim() { continuation.resume(returning: true) }
            }
        }
    }

    /// A flag that lets exactly one caller through.
    private final class Once: Sendable {
        private let taken = Mutex(false)

        /// `true` for the first caller only.
        func claim() -> Bool {
            taken.withLock { taken in
                defer { taken = true }
                return !taken
            }
        }
    }
}

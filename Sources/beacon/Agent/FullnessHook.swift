import Synchronization

/// What to call when the agent's ingest refused a post at the queue's bound: set once the
/// engine's metrics exist (they are made after the ingest's store), called at each refusal.
final class FullnessHook: Sendable {
    private let action = Mutex<(@Sendable () -> Void)?>(nil)

    func set(_ body: @escaping @Sendable () -> Void) {
        action.withLock { $0 = body }
    }

    func call() {
        action.withLock { $0 }?()
    }
}

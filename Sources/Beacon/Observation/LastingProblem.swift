import Synchronization

/// A failure that may repeat at every tick or request: tells when it is news (the first,
/// or one that differs from the last), so that a lasting one is logged once, not at
/// every occurrence.
final class LastingProblem: Sendable {
    private let last = Mutex<String?>(nil)

    /// Records `message`; whether it differs from the problem recorded before.
    func isNews(_ message: String) -> Bool {
        last.withLock { last in
            defer { last = message }
            return last != message
        }
    }

    /// The problem is over: the next one is news again.
    func clear() {
        last.withLock { $0 = nil }
    }
}

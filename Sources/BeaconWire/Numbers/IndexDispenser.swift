import Synchronization

/// Hands out the indexes 0, 1, 2… below a bound to concurrent workers, each index once:
/// the work queue of a fixed list shared by several tasks.
///
/// ```swift
/// let next = IndexDispenser()
/// while let index = next.take(below: bodies.count) { try await post(bodies[index]) }
/// ```
public final class IndexDispenser: Sendable {
    private let next = Mutex(0)

    public init() {}

    /// The next index below `count`, or `nil` when they are all taken.
    public func take(below count: Int) -> Int? {
        next.withLock { value in
            guard value < count else { return nil }
            defer { value += 1 }
            return value
        }
    }
}

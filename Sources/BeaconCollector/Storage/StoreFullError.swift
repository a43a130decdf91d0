/// The store is full: it holds as many events or bytes as it may, and takes no more until
/// some leave (`beacon agent`'s queue, until its destinations drain it). Nothing of the
/// batch was stored; the collector answers 503 `queue_full` with `Retry-After`.
public struct StoreFullError: Error, Sendable, CustomStringConvertible {
    /// What is full, with the numbers (events and bytes held, and the bounds).
    public var reason: String
    /// Seconds the client should wait before resending.
    public var retryAfterSeconds: Int

    /// Creates the error; `retryAfterSeconds` is clamped to 1...600.
    public init(reason: String, retryAfterSeconds: Int) {
        self.reason = reason
        self.retryAfterSeconds = min(600, max(1, retryAfterSeconds))
    }

    public var description: String { reason }
}

/// The store cannot take a batch now: its database is down or slow, or too many batches
/// already wait for it. Nothing of the batch was stored; the collector answers 503 with
/// `Retry-After`.
public struct StoreUnavailableError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, without credentials.
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

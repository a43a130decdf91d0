/// The store cannot take a batch now: its database is down or slow, too many batches
/// already wait for it, or it is full (``Cause/full``: `beacon agent`'s queue at its
/// bound). Nothing of the batch was stored; the collector answers 503 with `Retry-After`
/// (`store_unavailable`, or `queue_full`).
public struct StoreUnavailableError: Error, Sendable, CustomStringConvertible {
    /// Why the store cannot take the batch.
    public enum Cause: Sendable, Hashable {
        /// The database is down, slow or busy.
        case unavailable
        /// The store holds as much as it may; it takes more once some leaves.
        case full
    }

    /// What went wrong, without credentials (for ``Cause/full``: what is full, with the numbers).
    public var reason: String
    /// Seconds the client should wait before resending.
    public var retryAfterSeconds: Int
    public var cause: Cause

    /// Creates the error; `retryAfterSeconds` is clamped to 1...600.
    public init(reason: String, retryAfterSeconds: Int, cause: Cause = .unavailable) {
        self.reason = reason
        self.retryAfterSeconds = min(600, max(1, retryAfterSeconds))
        self.cause = cause
    }

    public var description: String { reason }
}

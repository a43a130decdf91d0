/// The store cannot take a batch now: its database is down or slow, or too many batches
/// already wait for it. Nothing of the batch was stored; the collector answers 503 with
/// `Retry-After`.
struct StoreUnavailableError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, without credentials.
    var reason: String
    /// Seconds the client should wait before resending.
    var retryAfterSeconds: Int

    var description: String { reason }
}

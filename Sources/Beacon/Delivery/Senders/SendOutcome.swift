import BeaconWire

/// The meaning of a send's result for the events in the batch.
public enum SendOutcome: Sendable, Hashable {
    /// Every event was accepted (2xx).
    case delivered
    /// Nothing was accepted, but trying again may work (408, 429, 5xx, timeout,
    /// connection errors). `retryAfter` is the server's `Retry-After`, if it gave one.
    case retryable(reason: String, retryAfter: Duration?)
    /// The destination refused some events for good (400). The listed events are
    /// dead-lettered with their reasons and the others are sent again. An empty list
    /// means the server did not say which: the batch is split until the culprit is alone.
    case rejected([EventRejection])
    /// The request was too large (413): the batch is split in halves.
    case tooLarge
    /// The destination refused the credentials (401, 403): it pauses until resumed.
    case unauthorized(reason: String)
}

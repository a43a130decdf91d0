/// What to do with a batch after a send.
public enum DeliveryDecision: Sendable, Hashable {
    /// Remove every event of the batch.
    case delivered
    /// Keep every event; send again after this wait. `serverAsked`: the wait the server
    /// asked for (`Retry-After`), which even a final flush at shutdown keeps to.
    case retry(after: Duration, reason: String, serverAsked: Duration? = nil)
    /// Move these events to the dead-letter table; the others stay and go again at once.
    case deadLetter([RejectedEvent])
    /// Send again at once, with batches of at most this many events.
    case split(limit: Int)
    /// Retries ran out (``RetryPolicy/maxAttempts`` or ``RetryPolicy/maxAge``): send again
    /// at once with batches of at most this many events, each once, until the event that
    /// still fails alone is dead-lettered. `reason` says why, for the history.
    case isolate(limit: Int, reason: String)
    /// The event that fails alone while isolating, with no delivery around it yet: keep
    /// it, and send the events after it at once. Delivered, they show the destination
    /// takes events: this one comes again from the head and, failing again, is
    /// dead-lettered. Failing too, the destination is failing: back off as usual.
    case probePast(reason: String)
    /// Stop sending to this destination until resumed.
    case pause(reason: String)
}

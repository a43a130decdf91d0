import BeaconWire

/// What a send did to its batch.
public enum BatchOutcome: String, Sendable, Hashable, CaseIterable {
    /// Delivered; the events left the queue.
    case sent
    /// Failed for now; the events stay queued and are retried after a backoff.
    case retry
    /// Too large (or refused without saying which event): split in halves.
    case split
    /// Some events were refused for good and dead-lettered; the rest stay queued.
    case deadLettered = "dead-lettered"
    /// The credentials were refused; the destination paused.
    case paused
    /// The destination's enrichment filtered out every event: nothing was sent.
    case filtered
}

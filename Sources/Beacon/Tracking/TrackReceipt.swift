import BeaconWire

/// What `track` returns: the event's id, and a way to wait for its commit.
public struct TrackReceipt: Sendable {
    /// The event's `messageId` (a UUIDv7 unless the input gave one).
    public let messageId: String
    /// Its place in the queue's order of appends.
    public let ticket: CommitTicket
    let queue: any EventAppender
    /// Why the event was not queued (``EventFilter/Decision/keep`` when it was).
    public var filtered: EventFilter.Decision = .keep

    /// Returns once the event is committed to the store. Throws
    /// ``TrackingError/droppedBeforeCommit`` if it was dropped while the store was failing.
    public func committed() async throws(TrackingError) {
        guard filtered == .keep else { return }  // filtered out: there is no commit to wait for
        try await queue.waitForCommit(ticket)
    }
}

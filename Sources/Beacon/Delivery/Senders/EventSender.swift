import BeaconWire

/// Delivers batches to one destination: the seam between the batcher and the network.
///
/// A sender never throws: every result, good or bad, is a ``SendResult`` whose
/// ``SendOutcome`` tells the batcher what to do with the events (see ``DeliveryPlanner``).
/// Beacon ships an HTTP sender, an NDJSON file sender and a log sender; tests use the
/// recording sender of `BeaconTesting`.
public protocol EventSender: Sendable {
    /// Where this sender delivers, for logs and the dashboard (`http://127.0.0.1:8080`).
    var endpointDescription: String { get }

    /// Sends one batch. Called with up to ``Destination/maxConcurrentRequests`` batches in
    /// flight per destination (one by default), so a sender shared by concurrent sends must
    /// be safe to call from several tasks at once.
    func send(_ batch: OutgoingBatch) async -> SendResult

    /// Does the CPU work of sending ahead of time (encoding, compression), so that it
    /// overlaps the request in flight. The batcher calls it for the batch it reads
    /// ahead; `send` then uses what it prepared. The default prepares nothing.
    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch
}

extension EventSender {
    public func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { batch }
}

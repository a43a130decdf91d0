import BeaconWire
import Logging
import ServiceLifecycle
import Synchronization

/// One place batches go: a name, a sender, and the enrichment chain that shapes each
/// event for it. Its progress through the queue is kept under its name.
///
/// ```swift
/// let fast = try Destination(name: "analytics", sender: sender, maxConcurrentRequests: 4)
/// ```
public struct Destination: Sendable {
    /// The name of the destination of an engine built with a single sender.
    public static let defaultName = "default"

    /// The values ``maxConcurrentRequests`` may take.
    public static let maxConcurrentRequestsRange = 1...16

    /// A short, stable name for the queue, logs, history and the dashboard (`default`,
    /// `analytics`...). Renaming a destination starts it again from the queue's head.
    public var name: String
    /// How batches get there.
    public var sender: any EventSender
    /// Steps applied to each event before it is sent there.
    public var enrichment: Enrichment
    /// Batches in flight at once to this destination, 1...16 (default 1).
    ///
    /// At 1, one batch is in flight and batches go in queue order. Above 1, the batcher
    /// sends up to this many consecutive batches at once (a wave), settles each on its
    /// own once all have answered, and starts the next wave; a failure in a wave is
    /// handled as at 1 (one backoff, one failure counted), and while a 413 split or the
    /// isolation of a failing event is in force, batches go one at a time.
    public private(set) var maxConcurrentRequests = 1

    /// A destination with one batch in flight at a time.
    public init(name: String = Destination.defaultName, sender: any EventSender, enrichment: Enrichment = []) {
        self.name = name
        self.sender = sender
        self.enrichment = enrichment
    }

    /// A destination with up to `maxConcurrentRequests` batches in flight at once; throws
    /// when it is outside ``maxConcurrentRequestsRange``.
    public init(
        name: String = Destination.defaultName, sender: any EventSender, enrichment: Enrichment = [], maxConcurrentRequests: Int
    ) throws(DestinationSettingError) {
        guard Self.maxConcurrentRequestsRange.contains(maxConcurrentRequests) else {
            throw DestinationSettingError(
                message: "maxConcurrentRequests must be \(Self.maxConcurrentRequestsRange.lowerBound)...\(Self.maxConcurrentRequestsRange.upperBound), not \(maxConcurrentRequests)")
        }
        self.init(name: name, sender: sender, enrichment: enrichment)
        self.maxConcurrentRequests = maxConcurrentRequests
    }
}

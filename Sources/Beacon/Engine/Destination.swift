import BeaconWire
import Logging
import ServiceLifecycle
import Synchronization

/// One place batches go: a name, a sender, and the enrichment chain that shapes each
/// event for it. Its progress through the queue is kept under its name.
public struct Destination: Sendable {
    /// The name of the destination of an engine built with a single sender.
    public static let defaultName = "default"

    /// A short, stable name for the queue, logs, history and the dashboard (`default`,
    /// `analytics`...). Renaming a destination starts it again from the queue's head.
    public var name: String
    /// How batches get there.
    public var sender: any EventSender
    /// Steps applied to each event before it is sent there.
    public var enrichment: Enrichment

    public init(name: String = Destination.defaultName, sender: any EventSender, enrichment: Enrichment = []) {
        self.name = name
        self.sender = sender
        self.enrichment = enrichment
    }
}

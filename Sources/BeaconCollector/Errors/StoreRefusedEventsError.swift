import BeaconWire

/// A ``CollectorStore`` refuses some events of a batch for good (checks of its own that
/// the collector's do not make): nothing of the batch was stored, and the collector
/// answers 400 `invalid_events` listing them, as it does for events it refuses itself.
public struct StoreRefusedEventsError: Error, Sendable, CustomStringConvertible {
    /// The refused events, by index in the batch, with a code and a reason.
    public var rejections: [EventRejection]

    /// Creates the error.
    public init(rejections: [EventRejection]) {
        self.rejections = rejections
    }

    public var description: String {
        "the store refused \(rejections.count) event\(rejections.count == 1 ? "" : "s")"
    }
}

/// A batch cleared for storage: every event of the parsed body, with its type and the
/// time the collector received it.
struct AcceptedBatch: Sendable {
    /// The body and the byte ranges of its events and fields.
    var parsed: ParsedBody
    /// The type of each event, in order (the route's default for events that name none).
    var types: [EventType]
    /// When the collector received the batch, in milliseconds since 1970.
    var receivedAtMilliseconds: Int64
}

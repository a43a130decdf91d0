import BeaconWire

/// A dead letter as the dashboard lists it: no whole payload, a preview of it.
public struct DeadLetterSummary: Sendable, Hashable {
    /// Its stable id (``DeadLetter/id``).
    public var id: Int64
    /// The destination that refused it.
    public var destination: String
    /// The event's name.
    public var name: String
    /// Why, as the destination said it.
    public var reason: String
    /// The HTTP status, if any.
    public var status: Int?
    /// When it was dead-lettered.
    public var failedAt: Timestamp
    /// The payload's first characters.
    public var preview: String
    /// The event's messageId.
    public var messageId: String
    /// How many times its destination refused it (more than 1 after retries).
    public var attempts: Int

    public init(
        id: Int64, destination: String, name: String, reason: String, status: Int?, failedAt: Timestamp, preview: String,
        messageId: String = "", attempts: Int = 1
    ) {
        self.id = id
        self.messageId = messageId
        self.attempts = attempts
        self.destination = destination
        self.name = name
        self.reason = reason
        self.status = status
        self.failedAt = failedAt
        self.preview = preview
    }

    /// The summary of `letter`.
    public init(_ letter: DeadLetter) {
        self.init(
            id: letter.id, destination: letter.destination, name: letter.event.name, reason: letter.reason, status: letter.status,
            failedAt: letter.failedAt, preview: letter.payloadPreview(limit: 160), messageId: letter.event.messageId,
            attempts: letter.attemptCount)
    }

    /// How many the snapshot lists at most, newest first.
    public static let snapshotLimit = 50
}

import BeaconWire

/// An event a destination refused for good, kept with the reason until an operator
/// retries it (back into the queue for that destination) or purges it.
public struct DeadLetter: Sendable, Hashable {
    /// Its id in the store: stable, never reused (0 until stored).
    public var id: Int64
    public var event: QueuedEvent
    /// Why, as the destination said it.
    public var reason: String
    /// Which destination refused it.
    public var destination: String
    /// The HTTP status, if any.
    public var status: Int?
    /// When it was dead-lettered (the last time, after retries).
    public var failedAt: Timestamp
    /// Every refusal, oldest first: one, plus one per retry that was refused again. The
    /// last is this letter's ``reason``, ``status`` and ``failedAt``.
    public var attempts: [DeadLetterAttempt]

    /// A letter; `attempts` defaults to this one refusal.
    public init(
        event: QueuedEvent, reason: String, destination: String, status: Int?, failedAt: Timestamp, id: Int64 = 0,
        attempts: [DeadLetterAttempt] = []
    ) {
        self.id = id
        self.event = event
        self.reason = reason
        self.destination = destination
        self.status = status
        self.failedAt = failedAt
        self.attempts = attempts.isEmpty ? [DeadLetterAttempt(number: 1, reason: reason, status: status, failedAt: failedAt)] : attempts
    }

    /// How many times its destination refused it.
    public var attemptCount: Int { attempts.last?.number ?? 1 }
}

extension DeadLetter {
    /// The first `limit` characters of the payload (JSON text), control characters shown
    /// as spaces: for lists on a terminal.
    public func payloadPreview(limit: Int = 80) -> String {
        let text = String(decoding: event.payload.prefix(max(0, limit) * 4), as: UTF8.self)
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        return cleaned.count > limit ? String(cleaned.prefix(max(0, limit - 1))) + "…" : cleaned
    }
}

/// One invalid event in a refused batch, as listed in the 400 response's `rejected` array:
/// `{"index":3,"messageId":"...","code":"missing_event_name","reason":"..."}`.
///
/// A sender dead-letters exactly the listed `messageId`s and resends the other events.
public struct EventRejection: Sendable, Hashable, Codable {
    /// Position of the event in the batch, from 0.
    public var index: Int
    /// The event's `messageId`, when it has a usable one.
    public var messageId: String?
    /// A stable code, e.g. `missing_message_id`, `event_too_large`, `duplicate_message_id`.
    public var code: String
    /// One readable sentence naming the problem and the fix.
    public var reason: String

    /// Creates a rejection.
    public init(index: Int, messageId: String?, code: String, reason: String) {
        self.index = index
        self.messageId = messageId
        self.code = code
        self.reason = reason
    }
}

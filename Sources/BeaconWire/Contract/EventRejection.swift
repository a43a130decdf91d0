/// One invalid event in a refused batch, as listed in a 400 answer's `rejected` array:
/// `{"index":3,"messageId":"...","code":"missing_event_name","reason":"..."}`.
///
/// The collector writes one per invalid event; the engine reads them back and
/// dead-letters exactly the named events, sending the others again. Part of the wire
/// contract between the two (see ``ErrorResponse``).
public struct EventRejection: Sendable, Hashable, Codable {
    /// The code used when a server names an event without a code of its own.
    public static let unspecifiedCode = "invalid_event"

    /// Position of the event in the batch, from 0. Beacon's collector always sets it;
    /// other servers may name the event by `messageId` only.
    public var index: Int?
    /// The event's `messageId`, when it has a usable one.
    public var messageId: String?
    /// A stable code, e.g. `missing_message_id`, `event_too_large`, `duplicate_message_id`.
    public var code: String
    /// One readable sentence naming the problem and the fix.
    public var reason: String

    /// Creates a rejection.
    public init(index: Int? = nil, messageId: String?, code: String = EventRejection.unspecifiedCode, reason: String) {
        self.index = index
        self.messageId = messageId
        self.code = code
        self.reason = reason
    }

    /// Writes `{"index":…,"messageId":…,"code":…,"reason":…}`.
    public func write(to writer: inout JSONWriter) {
        writer.writeRaw(#"{"index":"#)
        if let index { writer.write(index) } else { writer.writeRaw("null") }
        writer.writeRaw(#","messageId":"#)
        if let messageId { writer.write(messageId) } else { writer.writeRaw("null") }
        writer.writeRaw(#","code":"#)
        writer.write(code)
        writer.writeRaw(#","reason":"#)
        writer.write(reason)
        writer.writeByte(UInt8(ascii: "}"))
    }

    /// Reads one entry leniently: `nil` unless it is an object naming an event by
    /// `index` or `messageId`. A missing reason or code gets a placeholder.
    public init?(json: JSONValue) {
        guard let entry = json.objectValue else { return nil }
        let index = entry["index"]?.intValue.flatMap { $0 >= 0 ? $0 : nil }
        let messageId = entry["messageId"]?.stringValue
        guard index != nil || messageId != nil else { return nil }
        self.init(
            index: index, messageId: messageId, code: entry["code"]?.stringValue ?? Self.unspecifiedCode,
            reason: entry["reason"]?.stringValue ?? "")
    }
}

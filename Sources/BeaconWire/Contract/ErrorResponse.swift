/// The JSON body of a collector's refusal, the other half of the wire contract:
///
/// ```json
/// {"error":"invalid_events","code":"invalid_events","message":"2 of 3 events are invalid; nothing was stored. …",
///  "rejected":[{"index":0,"messageId":"m1","code":"event_too_large","reason":"…"}],
///  "rejectedCount":2}
/// ```
///
/// `rejected` lists at most ``maximumListedRejections`` events; `rejectedCount` says how
/// many were refused in all, so an answer stays small whatever the batch held. A sender
/// dead-letters the listed events and sends the rest again; any still invalid are named
/// in the next answer.
public struct ErrorResponse: Sendable, Hashable {
    /// The most events one answer lists.
    public static let maximumListedRejections = 100

    /// A stable, machine-readable code such as `invalid_json` or `invalid_events`.
    public var error: String?
    /// One readable sentence naming the problem and the fix.
    public var message: String?
    /// The refused events (at most ``maximumListedRejections``), or `nil` when the
    /// refusal is about the request as a whole.
    public var rejected: [EventRejection]?
    /// How many events were refused in all, when that is more than `rejected` lists.
    public var rejectedCount: Int?

    /// Creates a body.
    public init(error: String?, message: String?, rejected: [EventRejection]? = nil, rejectedCount: Int? = nil) {
        self.error = error
        self.message = message
        self.rejected = rejected
        self.rejectedCount = rejectedCount
    }

    /// The body as JSON, listing at most ``maximumListedRejections`` events.
    public var jsonBytes: [UInt8] {
        let listed = rejected.map { $0.prefix(Self.maximumListedRejections) }
        var writer = JSONWriter(capacity: 96 + (message?.utf8.count ?? 0) + (listed?.count ?? 0) * 160)
        writer.writeRaw(#"{"error":"#)
        if let error { writer.write(error) } else { writer.writeRaw("null") }
        // Segment's Python client and its forks read `code`: without it every refusal
        // raised a KeyError there, and a permanent 4xx was retried like a network error.
        writer.writeRaw(#","code":"#)
        if let error { writer.write(error) } else { writer.writeRaw("null") }
        writer.writeRaw(#","message":"#)
        if let message { writer.write(message) } else { writer.writeRaw("null") }
        if let listed {
            writer.writeRaw(#","rejected":["#)
            for (position, rejection) in listed.enumerated() {
                if position > 0 { writer.writeByte(UInt8(ascii: ",")) }
                rejection.write(to: &writer)
            }
            writer.writeByte(UInt8(ascii: "]"))
            let total = max(rejectedCount ?? 0, rejected?.count ?? 0)
            if total > listed.count {
                writer.writeRaw(#","rejectedCount":"#)
                writer.write(total)
            }
        }
        writer.writeByte(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// Reads a body leniently (other servers send `{"message":…}` or `{"error":…}` only):
    /// `nil` unless it is a JSON object. Entries of `rejected` that name no event are
    /// skipped.
    public init?(json: JSONValue) {
        guard let object = json.objectValue else { return nil }
        let rejected: [EventRejection]? = object["rejected"].flatMap { list in
            guard case .array(let items) = list else { return nil }
            return items.compactMap(EventRejection.init(json:))
        }
        self.init(
            error: object["error"]?.stringValue ?? object["code"]?.stringValue, message: object["message"]?.stringValue, rejected: rejected,
            rejectedCount: object["rejectedCount"]?.intValue)
    }
}

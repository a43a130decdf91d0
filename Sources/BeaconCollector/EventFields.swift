/// One top-level field of an event as the scanner found it: its JSON kind, and its text
/// when it is a string (escapes resolved) or a number (source text).
struct FieldValue: Sendable, Hashable {
    var kind: JSONKind
    var text: String?
}

/// The fields of one event that the collector checks or indexes. Everything else in the
/// event travels untouched in its original JSON.
struct EventFields: Sendable, Hashable {
    var type: FieldValue?
    var event: FieldValue?
    var name: FieldValue?
    var messageId: FieldValue?
    var userId: FieldValue?
    var anonymousId: FieldValue?
    var properties: FieldValue?
    var traits: FieldValue?
    var context: FieldValue?
    var integrations: FieldValue?
    var timestamp: FieldValue?
    var originalTimestamp: FieldValue?
    var sentAt: FieldValue?
    var writeKey: FieldValue?
}

/// One element of a batch: where its JSON sits in the body, and what it holds.
struct ParsedItem: Sendable {
    /// Byte range of the element's JSON in the (decompressed) body.
    var range: Range<Int>
    /// The element's JSON kind; only objects are events.
    var kind: JSONKind
    /// The fields found, when the element is an object.
    var fields: EventFields
}

/// A parsed ingest body: its events and the body-level write key.
struct ParsedBody: Sendable {
    var items: [ParsedItem]
    /// `writeKey` from the body (batch level, or the event itself for `/v1/track`).
    var writeKey: String?
}

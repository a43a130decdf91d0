import BeaconWire

/// One top-level field of an event as the scanner found it: its JSON kind and, for a
/// string or a number, where its text is. A string's text has its escapes resolved: it
/// is the string's bytes in the body when it has no escapes (nearly always), otherwise
/// its decoded bytes in the parse's side buffer (``ParsedBody/decoded``).
struct FieldValue: Sendable, Hashable {
    /// The text's bytes, in the body or (``isDecoded``) in the decoded buffer; empty for
    /// kinds without text.
    var range: Range<Int>
    var kind: JSONKind
    /// True when ``range`` indexes ``ParsedBody/decoded`` rather than the body.
    var isDecoded: Bool

    /// A value of a kind that has no text (object, array, boolean, null).
    init(kind: JSONKind) {
        self.range = 0..<0
        self.kind = kind
        self.isDecoded = false
    }

    /// A string or number whose text is at `range`.
    init(kind: JSONKind, range: Range<Int>, isDecoded: Bool = false) {
        self.range = range
        self.kind = kind
        self.isDecoded = isDecoded
    }

    /// True for strings and numbers.
    var hasText: Bool { kind == .string || kind == .number }
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
    var timestamp: FieldValue?
    var originalTimestamp: FieldValue?
    var sentAt: FieldValue?
    var writeKey: FieldValue?
    /// The kinds of the fields that must be objects.
    var properties: JSONKind?
    var traits: JSONKind?
    var context: JSONKind?
    var integrations: JSONKind?
}

/// One element of a batch: where its JSON sits in the body, and what it holds.
struct ParsedItem: Sendable {
    /// Byte range of the element's JSON in the (decompressed) body.
    var range: Range<Int>
    /// The element's JSON kind; only objects are events.
    var kind: JSONKind
    /// The fields found, when the element is an object.
    var fields: EventFields
    /// The first string in the element that breaks ``EventTextRule``, if any.
    var textProblem: EventTextRule.Problem? = nil
}

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
}

/// A parsed ingest body: the body itself, its events as byte ranges into it, and the
/// body-level write key. No field is copied out as a `String` on the way in; read them
/// with ``withText(_:)`` (bytes) or ``string(_:)`` (error messages, tests).
struct ParsedBody: Sendable {
    /// The (decompressed) body that item and field ranges point into.
    var body: [UInt8]
    /// The decoded text of the fields written with escapes.
    var decoded: [UInt8]
    var items: [ParsedItem]
    /// `writeKey` from the body (batch level, or the event itself for `/v1/track`).
    var writeKey: String?

    /// Calls `work` with read access to the text of the body and of its fields.
    func withText<Result, Failure: Error>(
        _ work: (ParsedText) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body.withUnsafeBufferPointer { body throws(Failure) in
            try decoded.withUnsafeBufferPointer { decoded throws(Failure) in
                try work(ParsedText(body: body, decoded: decoded))
            }
        }
    }

    /// The text of a string or number field; `nil` when absent or of another kind.
    func string(_ field: FieldValue?) -> String? {
        withText { $0.string(field) }
    }

    /// The JSON of the item at `index`, as sent.
    func json(ofItem index: Int) -> String {
        withText { String(decoding: $0.bytes(items[index].range), as: UTF8.self) }
    }
}

/// The bytes of a ``ParsedBody``, valid only inside ``ParsedBody/withText(_:)``.
struct ParsedText {
    let body: UnsafeBufferPointer<UInt8>
    let decoded: UnsafeBufferPointer<UInt8>

    /// Bytes of the body.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: body[range])
    }

    /// The text of a field (empty for kinds without text).
    func bytes(_ field: FieldValue) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: (field.isDecoded ? decoded : body)[field.range])
    }

    /// The text of a string or number field; `nil` when absent or of another kind.
    func string(_ field: FieldValue?) -> String? {
        guard let field, field.hasText else { return nil }
        return String(decoding: bytes(field), as: UTF8.self)
    }

    /// True when the field is a string or number whose text is `literal`.
    func text(of field: FieldValue, equals literal: StaticString) -> Bool {
        guard field.hasText else { return false }
        let text = bytes(field)
        let count = literal.utf8CodeUnitCount
        guard text.count == count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where text[offset] != pointer[offset] {
            return false
        }
        return true
    }
}

/// A parsed ingest body: the body itself, its events as byte ranges into it, and the
/// body-level write key. No field is copied out as a `String` on the way in; read them
/// with ``withText(_:)`` (bytes) or ``string(_:)`` (error messages, tests).
struct ParsedBody: Sendable {
    /// The (decompressed) body that item and field ranges point into.
    var body: [UInt8]
    /// The decoded text of the fields written with escapes.
    var decoded: [UInt8]
    var items: [ParsedItem]
    /// The number of elements in the body, which is more than `items` holds when the
    /// parser stopped keeping them past a limit (see ``BatchParser/parseBatch(_:keepingAtMost:)``).
    var elementCount: Int
    /// `writeKey` from the body (batch level, or the event itself for `/v1/track`).
    var writeKey: String?

    init(body: [UInt8], decoded: [UInt8], items: [ParsedItem], writeKey: String? = nil) {
        self.body = body
        self.decoded = decoded
        self.items = items
        self.elementCount = items.count
        self.writeKey = writeKey
    }

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
}

import PostgresNIO

/// A `text[]` parameter in PostgreSQL's binary array format, built straight from the
/// request body's bytes (no `String` per field), with NULL elements.
///
/// postgres-nio encodes `[String]` but not arrays with NULLs; the format is small: one
/// dimension, a has-NULL flag, the element type, the length and lower bound, then each
/// element as a 32-bit length (-1 for NULL) and its bytes.
struct PostgresTextArray: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { .textArray }
    static var psqlFormat: PostgresFormat { .binary }

    private var elements = ByteBuffer()
    private var count: Int32 = 0
    private var hasNull = false

    init() {}

    /// Appends one element; `nil` appends NULL.
    ///
    /// - Throws: ``TooLarge`` past 2 GiB in one element or 2^31 elements.
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>?) throws(TooLarge) {
        let (next, overflow) = count.addingReportingOverflow(1)
        guard !overflow else { throw TooLarge() }
        if let bytes {
            guard let length = Int32(exactly: bytes.count) else { throw TooLarge() }
            elements.writeInteger(length)
            elements.writeBytes(bytes)
        } else {
            elements.writeInteger(Int32(-1))
            hasNull = true
        }
        count = next
    }

    /// Appends a static string.
    mutating func append(_ text: StaticString) throws(TooLarge) {
        try append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        guard count > 0 else {
            // An empty array has no dimensions.
            buffer.writeMultipleIntegers(Int32(0), Int32(0), PostgresDataType.text.rawValue)
            return
        }
        buffer.writeMultipleIntegers(Int32(1), Int32(hasNull ? 1 : 0), PostgresDataType.text.rawValue, count, Int32(1))
        buffer.writeImmutableBuffer(elements)
    }

    /// An array past PostgreSQL's limits (no request the collector accepts comes near them).
    struct TooLarge: Error {}
}

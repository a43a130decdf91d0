/// Checks that bytes are an ISO 8601 date-time that `Timestamp(iso8601:)` accepts, without
/// making a `String` of them: `YYYY-MM-DDTHH:MM:SS` (or a space for `T`), an optional
/// fraction of any length, and `Z` or a `±HH:MM` / `±HHMM` offset.
///
/// The grammar and the range checks are `Timestamp(iso8601:)`'s, step for step; a test
/// compares the two on many inputs.
struct TimestampSyntax {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// True when `Timestamp(iso8601:)` would accept the text `bytes`.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var cursor = TimestampSyntax(bytes)
        return cursor.readDateTime()
    }

    private mutating func readDateTime() -> Bool {
        guard number(4) != nil, expect("-"), let month = number(2), expect("-"), let day = number(2),
            index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ")
        else { return false }
        index += 1
        guard let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return false }
        if expect(".") {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > start else { return false }
        }
        if expect("Z") || expect("z") {
            // UTC
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            index += 1
            guard number(2) != nil else { return false }
            _ = expect(":")
            guard number(2) != nil else { return false }
        } else {
            return false
        }
        return index == bytes.count
    }

    /// Reads `width` decimal digits.
    private mutating func number(_ width: Int) -> Int? {
        guard index + width <= bytes.count else { return nil }
        var value = 0
        for _ in 0..<width {
            let byte = bytes[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
            index += 1
        }
        return value
    }

    /// Consumes `ascii` if it is next.
    private mutating func expect(_ ascii: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: ascii) else { return false }
        index += 1
        return true
    }
}

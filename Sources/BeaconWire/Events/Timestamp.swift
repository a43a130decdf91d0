#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An instant in wall-clock time with millisecond precision, written as ISO 8601
/// (`2026-11-21T23:42:05.123Z`), as the Segment API expects.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The current time from the system's real-time clock.
    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSince1970: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// Seconds since 1970, as a `Double`.
    public var secondsSince1970: Double { Double(millisecondsSince1970) / 1000 }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// ISO 8601 in UTC with milliseconds.
    public var description: String { iso8601 }

    /// ISO 8601 in UTC with milliseconds: `YYYY-MM-DDTHH:MM:SS.mmmZ`. An instant before
    /// year 0 or after 9999 (which the format cannot write: a row read back from a damaged
    /// store, say) is written as the nearest one it can.
    public var iso8601: String {
        var millis = min(max(millisecondsSince1970, Self.earliestWritable), Self.latestWritable)
        var days = millis / 86_400_000
        millis -= days * 86_400_000
        if millis < 0 {
            millis += 86_400_000
            days -= 1
        }
        let (year, month, day) = Timestamp.civil(fromDays: days)
        let hour = Int(millis / 3_600_000)
        let minute = Int(millis / 60_000 % 60)
        let second = Int(millis / 1000 % 60)
        let fraction = Int(millis % 1000)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            // Each field is in range here (the year 0...9999 by the clamp above), so each
            // digit is 0...9. Written by position: no state for the closure to capture.
            guard let text = buffer.baseAddress, buffer.count >= 24 else { return 0 }
            Self.putDigits(year / 100, at: text); Self.putDigits(year % 100, at: text + 2); text[4] = UInt8(ascii: "-")
            Self.putDigits(month, at: text + 5); text[7] = UInt8(ascii: "-"); Self.putDigits(day, at: text + 8)
            text[10] = UInt8(ascii: "T"); Self.putDigits(hour, at: text + 11); text[13] = UInt8(ascii: ":")
            Self.putDigits(minute, at: text + 14); text[16] = UInt8(ascii: ":"); Self.putDigits(second, at: text + 17)
            text[19] = UInt8(ascii: "."); text[20] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 100)
            Self.putDigits(fraction % 100, at: text + 21); text[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Writes `value` (0...99) as two digits.
    @inline(__always)
    private static func putDigits(_ value: Int, at text: UnsafeMutablePointer<UInt8>) {
        text[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
        text[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the instants ``iso8601`` can write.
    static let earliestWritable: Int64 = -62_167_219_200_000
    static let latestWritable: Int64 = 253_402_300_799_999

    /// Parses ISO 8601 date-times: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any
    /// length, and `Z` or a `±HH:MM` / `±HHMM` offset. Returns `nil` for anything else.
    public init?(iso8601 text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Timestamp(iso8601: $0) }) else { return nil }
        self = parsed
    }

    /// Parses the UTF-8 bytes of an ISO 8601 date-time, as ``init(iso8601:)-(String)``
    /// does, without making a `String` of them (the collector checks timestamps in place).
    public init?(iso8601 bytes: UnsafeBufferPointer<UInt8>) {
        // A struct, not nested functions: those would capture the index in a box checked
        // for exclusive access at every byte (a few percent of `beacon agent`'s CPU).
        var reader = ISO8601Reader(bytes: bytes)
        guard let year = reader.number(4), reader.expect("-"), let month = reader.number(2), reader.expect("-"),
              let day = reader.number(2), reader.expect("T") || reader.expect(" ")
        else { return nil }
        guard let hour = reader.number(2), reader.expect(":"), let minute = reader.number(2), reader.expect(":"),
              let second = reader.number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if reader.expect(".") {
            var digits = 0
            while let digit = reader.digit() {
                if digits < 3 { millis = millis * 10 + digit }
                digits += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        var offsetMinutes = 0
        if reader.expect("Z") || reader.expect("z") {
            offsetMinutes = 0
        } else if let sign = reader.expect("+") ? 1 : reader.expect("-") ? -1 : nil {
            guard let offsetHours = reader.number(2) else { return nil }
            _ = reader.expect(":")
            guard let offsetMins = reader.number(2) else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        guard reader.isAtEnd else { return nil }
        let days = Timestamp.days(fromCivil: year, month, day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        self.init(millisecondsSince1970: seconds * 1000 + Int64(millis))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date-time: \(text)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }

    // Howard Hinnant's civil-from-days and days-from-civil algorithms.
    static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (month 1...12).
    public static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

/// Reads an ISO 8601 date-time's bytes left to right, for ``Timestamp/init(iso8601:)-(UnsafeBufferPointer<UInt8>)``.
private struct ISO8601Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    /// `width` decimal digits as a number, or `nil` (the index is then anywhere).
    mutating func number(_ width: Int) -> Int? {
        guard bytes.count - index >= width else { return nil }
        var value = 0
        for _ in 0..<width {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// The next byte's value when it is a decimal digit (then read), else `nil`.
    mutating func digit() -> Int? {
        guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 0x30)
    }

    /// Reads `ascii` when it is the next byte.
    mutating func expect(_ ascii: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: ascii) else { return false }
        index += 1
        return true
    }
}

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

    /// ISO 8601 in UTC with milliseconds: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public var iso8601: String {
        var millis = millisecondsSince1970
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
            var position = 0
            func put(_ value: Int, width: Int) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                var value = value
                for _ in 0..<width {
                    buffer[position] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                    value %= divisor
                    divisor /= 10
                    position += 1
                }
            }
            func put(_ ascii: Unicode.Scalar) {
                buffer[position] = UInt8(ascii: ascii)
                position += 1
            }
            put(year, width: 4); put("-"); put(month, width: 2); put("-"); put(day, width: 2)
            put("T"); put(hour, width: 2); put(":"); put(minute, width: 2); put(":"); put(second, width: 2)
            put("."); put(fraction, width: 3); put("Z")
            return position
        }
    }

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
        var index = 0
        func number(_ width: Int) -> Int? {
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
        func expect(_ ascii: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: ascii) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ")
        else { return nil }
        index += 1
        guard let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if expect(".") {
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if digits < 3 { millis = millis * 10 + Int(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millis *= 10 } }
        }
        var offsetMinutes = 0
        if expect("Z") || expect("z") {
            offsetMinutes = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2) else { return nil }
            _ = expect(":")
            guard let offsetMins = number(2) else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
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

import BeaconWire

/// HTTP dates (RFC 9110 §5.6.7), for `Retry-After`.
enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses an IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`, or returns `nil`.
    /// The day name is checked for form only, not against the date.
    static func parseIMFFixdate(_ text: String) -> Timestamp? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29 else { return nil }
        func word(_ start: Int, _ length: Int) -> String { String(decoding: bytes[start..<start + length], as: UTF8.self) }
        func number(_ start: Int, _ length: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + length] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func at(_ index: Int, _ ascii: Unicode.Scalar) -> Bool { bytes[index] == UInt8(ascii: ascii) }
        guard days.contains(word(0, 3)), at(3, ","), at(4, " "), at(7, " "), at(11, " "), at(16, " "),
              at(19, ":"), at(22, ":"), at(25, " "), word(26, 3) == "GMT",
              let day = number(5, 2), let monthIndex = months.firstIndex(of: word(8, 3)),
              let year = number(12, 4), let hour = number(17, 2), let minute = number(20, 2),
              let second = number(23, 2),
              (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let dayNumber = Int64(Timestamp.days(fromCivil: year, monthIndex + 1, day))
        let seconds = dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Timestamp(millisecondsSince1970: seconds * 1000)
    }

}

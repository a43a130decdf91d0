/// The `format`s Beacon asserts (a string that does not match fails the schema, as the
/// format-assertion vocabulary has it); any other name is refused when the schema compiles.
/// A value that is not a string passes: `format` says nothing of numbers.
enum SchemaFormat: String, Sendable, CaseIterable {
    case dateTime = "date-time"
    case date
    case email
    case uuid
    case uri

    func admits(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        switch self {
        case .dateTime:
            guard let t = bytes.firstIndex(where: { $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "t") }) else { return false }
            return Self.isDate(bytes[..<t]) && Self.isTime(bytes[(t + 1)...])
        case .date: return Self.isDate(bytes[...])
        case .email: return Self.isEmail(text)
        case .uuid: return Self.isUUID(bytes)
        case .uri: return Self.isURI(bytes)
        }
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `YYYY-MM-DD`, a day that exists (29 February in leap years only).
    private static func isDate(_ bytes: ArraySlice<UInt8>) -> Bool {
        let b = Array(bytes)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            let year = digits(b[0..<4]), let month = digits(b[5..<7]), let day = digits(b[8..<10]),
            (1...12).contains(month)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }

    /// `HH:MM:SS[.frac](Z|±HH:MM)`, RFC 3339's full-time.
    private static func isTime(_ bytes: ArraySlice<UInt8>) -> Bool {
        let b = Array(bytes)
        guard b.count >= 9, b[2] == UInt8(ascii: ":"), b[5] == UInt8(ascii: ":"),
            let hour = digits(b[0..<2]), let minute = digits(b[3..<5]), let second = digits(b[6..<8]),
            hour < 24, minute < 60, second <= 60
        else { return false }
        var index = 8
        if b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, (0x30...0x39).contains(b[index]) { index += 1 }
            guard index > start else { return false }
        }
        guard index < b.count else { return false }
        let zone = Array(b[index...])
        if zone == [UInt8(ascii: "Z")] || zone == [UInt8(ascii: "z")] { return second < 60 || (hour == 23 && minute == 59) }
        guard zone.count == 6, zone[0] == UInt8(ascii: "+") || zone[0] == UInt8(ascii: "-"), zone[3] == UInt8(ascii: ":"),
            let offsetHour = digits(zone[1..<3]), let offsetMinute = digits(zone[4..<6]), offsetHour < 24, offsetMinute < 60
        else { return false }
        guard second == 60 else { return true }
        // A leap second is 23:59:60 in UTC: the local time minus the offset.
        let sign = zone[0] == UInt8(ascii: "+") ? 1 : -1
        let utc = ((hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute)) % 1_440 + 1_440) % 1_440
        return utc == 23 * 60 + 59
    }

    /// `local@domain`: a local part of printable characters without spaces (dots not first,
    /// last or doubled), a domain of letters, digits, hyphens and dots in non-empty labels.
    private static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last, !local.isEmpty, !domain.isEmpty,
            local.utf8.count <= 64, domain.utf8.count <= 253
        else { return false }
        guard local.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && !"()<>[]:;,\\\"".unicodeScalars.contains($0) }),
            !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" }
        }
    }

    /// 8-4-4-4-12 hexadecimal digits.
    private static func isUUID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !((0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)) {
                return false
            }
        }
        return true
    }

    /// An absolute URI: a scheme (a letter, then letters, digits, `+`, `-`, `.`), `:`, and the
    /// rest in RFC 3986's characters, each `%` followed by two hexadecimal digits.
    private static func isURI(_ bytes: [UInt8]) -> Bool {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) }
        guard isLetter(bytes[0]), bytes[1..<colon].allSatisfy({ isLetter($0) || isDigit($0) || "+-.".utf8.contains($0) }) else { return false }
        let allowed = Set("-._~:/?#[]@!$&'()*+,;=".utf8)
        var index = colon + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return false }
                index += 3
                continue
            }
            guard isLetter(byte) || isDigit(byte) || allowed.contains(byte) else { return false }
            index += 1
        }
        return true
    }
}

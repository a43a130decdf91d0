extension ScenarioJSONReader {
    /// Reads a string starting at its opening quote, decoding escapes and checking UTF-8.
    mutating func readString() throws(ScenarioError) -> String {
        let (startLine, startColumn) = (line, column)
        advance()
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = current else {
                throw .syntax(startLine, startColumn, "unterminated string (no closing quote before the end of the file)")
            }
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(try readEscape(stringLine: startLine, stringColumn: startColumn))
            case 0x00:
                throw .syntax(line, column, "NUL byte in a string")
            case 0x01..<0x20:
                throw .syntax(
                    line, column,
                    "control character \(Self.hexScalar(UInt32(byte))) in a string; write it as an escape such as \\n or \\u00\(byte < 0x10 ? "0" : "")\(String(byte, radix: 16, uppercase: true))"
                )
            case 0x20..<0x80:
                scalars.append(Unicode.Scalar(byte))
                advance()
            default:
                guard let (scalar, length) = Self.decodeUTF8(bytes, at: index) else {
                    throw .syntax(line, column, "\(Self.describeCharacter(in: bytes, at: index)) in a string; the file must be UTF-8")
                }
                scalars.append(scalar)
                for _ in 0..<length { advance() }
            }
        }
    }

    /// Reads one escape at the backslash; a `\uD83D\uDE00` pair becomes one scalar.
    mutating func readEscape(stringLine: Int, stringColumn: Int) throws(ScenarioError) -> Unicode.Scalar {
        let (escapeLine, escapeColumn) = (line, column)
        advance()
        guard let byte = current else {
            throw .syntax(stringLine, stringColumn, "unterminated string (no closing quote before the end of the file)")
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
            advance()
            return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): advance(); return "\u{08}"
        case UInt8(ascii: "f"): advance(); return "\u{0C}"
        case UInt8(ascii: "n"): advance(); return "\n"
        case UInt8(ascii: "r"): advance(); return "\r"
        case UInt8(ascii: "t"): advance(); return "\t"
        case UInt8(ascii: "u"):
            advance()
            let unit = try readHex4(escapeLine: escapeLine, escapeColumn: escapeColumn)
            if (0xDC00...0xDFFF).contains(unit) {
                throw .syntax(escapeLine, escapeColumn, "lone low surrogate \\u\(Self.hex4(unit)) (it must follow a high surrogate \\uD800-\\uDBFF)")
            }
            guard (0xD800...0xDBFF).contains(unit) else {
                guard let scalar = Unicode.Scalar(unit) else {
                    throw .syntax(escapeLine, escapeColumn, "invalid escape \\u\(Self.hex4(unit))")
                }
                return scalar
            }
            let loneHigh = ScenarioError.syntax(
                escapeLine, escapeColumn,
                "lone high surrogate \\u\(Self.hex4(unit)) (it must be followed by a low surrogate \\uDC00-\\uDFFF)")
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw loneHigh
            }
            let (lowLine, lowColumn) = (line, column)
            advance()
            advance()
            let low = try readHex4(escapeLine: lowLine, escapeColumn: lowColumn)
            guard (0xDC00...0xDFFF).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            else { throw loneHigh }
            return scalar
        default:
            throw .syntax(
                escapeLine, escapeColumn,
                "invalid escape '\\\(Self.describeCharacter(in: bytes, at: index).trimmingQuotes)'; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX")
        }
    }

    /// Reads the four hex digits of a `\u` escape.
    mutating func readHex4(escapeLine: Int, escapeColumn: Int) throws(ScenarioError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexDigit(byte) else {
                throw .syntax(escapeLine, escapeColumn, "\\u must be followed by four hex digits")
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    static func hex4(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Reads a number: checks the RFC 8259 grammar, that a delimiter follows, and that its
    /// value is finite as a `Double`; returns the literal text.
    mutating func readNumber() throws(ScenarioError) -> String {
        let (startLine, startColumn) = (line, column)
        let start = index
        var valid = true
        func digits(_ reader: inout ScenarioJSONReader) -> Int {
            var count = 0
            while let byte = reader.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                reader.advance()
                count += 1
            }
            return count
        }
        if current == UInt8(ascii: "-") { advance() }
        if current == UInt8(ascii: "0") {
            advance()
        } else if digits(&self) == 0 {
            valid = false
        }
        if valid, current == UInt8(ascii: ".") {
            advance()
            valid = digits(&self) > 0
        }
        if valid, current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            advance()
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
            valid = digits(&self) > 0
        }
        if valid, let byte = current {
            valid = [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte)
        }
        guard valid else {
            var end = index
            while end < bytes.count, Self.isNumberish(bytes[end]) { end += 1 }
            let token = String(decoding: bytes[start..<max(end, index)], as: UTF8.self)
            if token.lowercased().contains("inf") || token.lowercased().contains("nan") {
                throw .syntax(startLine, startColumn, "JSON has no NaN or Infinity; give a finite number")
            }
            throw .syntax(
                startLine, startColumn,
                "invalid number '\(Self.clip(token))'; JSON numbers are decimal, like 12, -3, 0.5 or 1e3, without leading zeros")
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            throw .syntax(startLine, startColumn, "number '\(Self.clip(text))' is too large to be represented")
        }
        return text
    }

    static func isNumberish(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }
}

extension String {
    /// `x` for `'x'`; other descriptions unchanged.
    fileprivate var trimmingQuotes: String {
        hasPrefix("'") && hasSuffix("'") && count >= 3 ? String(dropFirst().dropLast()) : self
    }
}

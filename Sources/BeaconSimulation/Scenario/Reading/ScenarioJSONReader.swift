/// A strict RFC 8259 JSON reader that keeps the line and column of every value and key.
///
/// Beyond the RFC it rejects, with the position where they are found: files over
/// ``maxBytes``, nesting deeper than ``maxDepth`` (so hostile input cannot exhaust the stack),
/// duplicate keys, numbers that are not finite as a `Double` (`1e999`), NUL bytes, invalid
/// UTF-8 and lone surrogates. A UTF-8 byte order mark at the very start is skipped.
struct ScenarioJSONReader {
    /// The largest file accepted, in bytes (1 MiB).
    static let maxBytes = 1_048_576
    /// The deepest nesting of arrays and objects accepted.
    static let maxDepth = 64

    let bytes: [UInt8]
    var index = 0
    var line = 1
    var column = 1

    /// Reads one JSON document.
    static func read(_ bytes: [UInt8]) throws(ScenarioError) -> ScenarioJSON {
        guard bytes.count <= maxBytes else {
            throw .syntax(1, 1, "the file is larger than 1 MiB (\(maxBytes) bytes), the most a scenario may be")
        }
        guard !bytes.isEmpty else {
            throw .syntax(1, 1, "the file is empty; a scenario is a JSON object")
        }
        var reader = ScenarioJSONReader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhitespace()
        if reader.index < bytes.count {
            throw reader.unexpected(" after the end of the document")
        }
        return value
    }

    // MARK: - Cursor

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Consumes one byte, keeping line and column: LF, CR LF and a lone CR end a line;
    /// UTF-8 continuation bytes do not advance the column.
    mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte == 0x0D {
            if current != 0x0A {
                line += 1
                column = 1
            }
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            advance()
        }
    }

    /// An error about the character at the cursor (or the end of the file); `context` follows
    /// directly, so it starts with a space or a semicolon.
    func unexpected(_ context: String) -> ScenarioError {
        guard current != nil else {
            return .syntax(line, column, "unexpected end of file\(context)")
        }
        return .syntax(line, column, "unexpected \(Self.describeCharacter(in: bytes, at: index))\(context)")
    }

    /// `'x'`, `NUL byte`, `control character U+0007` or `invalid UTF-8 byte 0xFF`.
    static func describeCharacter(in bytes: [UInt8], at index: Int) -> String {
        let byte = bytes[index]
        if byte == 0 { return "NUL byte" }
        if byte < 0x20 || byte == 0x7F { return "control character \(hexScalar(UInt32(byte)))" }
        if byte < 0x80 { return "'\(Character(Unicode.Scalar(byte)))'" }
        guard let (scalar, _) = decodeUTF8(bytes, at: index) else {
            return "invalid UTF-8 byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
        return "'\(Character(scalar))'"
    }

    /// `U+000A`.
    static func hexScalar(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Decodes one well-formed UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    static func decodeUTF8(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07)
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= smallest, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    // MARK: - Values

    mutating func readValue(depth: Int) throws(ScenarioError) -> ScenarioJSON {
        let (startLine, startColumn) = (line, column)
        guard let byte = current else { throw unexpected("; expected a value") }
        let value: ScenarioJSON.Value
        switch byte {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): value = .string(try readString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try readNumber())
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            value = try readLiteral()
        default: throw unexpected("; expected a value")
        }
        return ScenarioJSON(value: value, line: startLine, column: startColumn)
    }

    mutating func readObject(depth: Int) throws(ScenarioError) -> ScenarioJSON {
        let (startLine, startColumn) = try open(depth: depth)
        var members: [ScenarioJSON.Member] = []
        var seen: [String: (Int, Int)] = [:]
        if current == UInt8(ascii: "}") {
            advance()
            return ScenarioJSON(value: .object([]), line: startLine, column: startColumn)
        }
        while true {
            guard current == UInt8(ascii: "\"") else {
                throw unexpected("; expected a key in double quotes")
            }
            let (keyLine, keyColumn) = (line, column)
            let key = try readString()
            if let (firstLine, firstColumn) = seen[key] {
                throw .syntax(
                    keyLine, keyColumn,
                    "duplicate key '\(Self.clip(key))' (first at line \(firstLine), column \(firstColumn))")
            }
            seen[key] = (keyLine, keyColumn)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw unexpected("; expected ':' after the key") }
            advance()
            skipWhitespace()
            let value = try readValue(depth: depth)
            members.append(ScenarioJSON.Member(key: key, keyLine: keyLine, keyColumn: keyColumn, value: value))
            if try closesOrContinues("}", "object", startLine: startLine) {
                return ScenarioJSON(value: .object(members), line: startLine, column: startColumn)
            }
        }
    }

    mutating func readArray(depth: Int) throws(ScenarioError) -> ScenarioJSON {
        let (startLine, startColumn) = try open(depth: depth)
        var elements: [ScenarioJSON] = []
        if current == UInt8(ascii: "]") {
            advance()
            return ScenarioJSON(value: .array([]), line: startLine, column: startColumn)
        }
        while true {
            elements.append(try readValue(depth: depth))
            if try closesOrContinues("]", "array", startLine: startLine) {
                return ScenarioJSON(value: .array(elements), line: startLine, column: startColumn)
            }
        }
    }

    /// Reads past the `{` or `[` here, at nesting `depth` (refused past ``maxDepth``), and
    /// the whitespace after it. Returns where it stood.
    private mutating func open(depth: Int) throws(ScenarioError) -> (line: Int, column: Int) {
        let start = (line, column)
        guard depth <= Self.maxDepth else {
            throw .syntax(line, column, "nesting deeper than \(Self.maxDepth) levels")
        }
        advance()
        skipWhitespace()
        return start
    }

    /// After a member or an element: `close` ends the container (read past it, returns
    /// true); a comma goes on to the next one (read past it, returns false). Anything
    /// else, or a comma right before `close`, is refused where it stands.
    private mutating func closesOrContinues(
        _ close: Unicode.Scalar, _ container: String, startLine: Int
    ) throws(ScenarioError) -> Bool {
        let closing = UInt8(ascii: close)
        skipWhitespace()
        if current == closing {
            advance()
            return true
        }
        guard current == UInt8(ascii: ",") else {
            throw unexpected("; expected ',' or '\(close)' in the \(container) started at line \(startLine)")
        }
        let (commaLine, commaColumn) = (line, column)
        advance()
        skipWhitespace()
        if current == closing {
            throw .syntax(commaLine, commaColumn, "trailing comma before '\(close)'")
        }
        return false
    }

    /// `true`, `false` or `null`; anything else spelled with letters is an error.
    mutating func readLiteral() throws(ScenarioError) -> ScenarioJSON.Value {
        let (startLine, startColumn) = (line, column)
        let start = index
        while let byte = current, Self.isLetter(byte) { advance() }
        let word = String(decoding: bytes[start..<index], as: UTF8.self)
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "NaN", "Infinity", "nan", "inf", "infinity":
            throw .syntax(startLine, startColumn, "JSON has no NaN or Infinity; give a finite number")
        default:
            throw .syntax(startLine, startColumn, "unexpected '\(Self.clip(word))'; expected a value (strings need double quotes)")
        }
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// Shortens user text quoted in a message to 40 characters.
    static func clip(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(39)) + "…"
    }
}

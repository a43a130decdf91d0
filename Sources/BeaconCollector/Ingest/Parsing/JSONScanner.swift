import BeaconWire

/// The type of a JSON value, as the scanner sees it.
enum JSONKind: Sendable, Hashable {
    case null, bool, number, string, array, object

    /// The name used in error messages.
    var name: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// A JSON syntax error at a byte offset.
struct JSONSyntaxError: Error, Sendable, Hashable {
    /// Offset of the offending byte in the body.
    var offset: Int
    /// What was wrong, e.g. "expected ':' after an object key".
    var message: String
}

/// A string token: the bytes between the quotes, and whether they hold escapes.
struct JSONStringToken: Sendable {
    var range: Range<Int>
    var hasEscapes: Bool
}

/// A validating, non-allocating JSON scanner over UTF-8 bytes (already checked to be valid
/// UTF-8). It walks a document once, skipping values it is not asked to decode, so a
/// batch can be checked and cut into its events' byte ranges without building a tree.
struct JSONScanner {
    /// The document.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The read position.
    var index: Int = 0
    /// The first string escape since this was last cleared that breaks ``EventTextRule``
    /// (a `\u0000`, a lone surrogate): the parser clears it before each event and reads
    /// it after, so the event, not the request, is refused.
    var textProblem: EventTextRule.Problem?
    /// The deepest nesting accepted.
    static let maxDepth = 128

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Primitives

    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, message: message)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The kind of the value starting at the read position (after whitespace).
    mutating func peekKind() throws(JSONSyntaxError) -> JSONKind {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw error("unexpected character '\(Self.printable(bytes[index]))', expected a value")
        }
    }

    /// Fails unless only whitespace remains.
    mutating func expectEnd() throws(JSONSyntaxError) {
        skipWhitespace()
        if index < bytes.count { throw error("unexpected data after the JSON value") }
    }

    // MARK: Containers

    /// Consumes `{` or `[`.
    mutating func open(_ byte: UInt8) throws(JSONSyntaxError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else {
            throw error("expected '\(Self.printable(byte))'")
        }
        index += 1
    }

    /// Moves to the next key of an object opened with `open("{")` and consumes the colon
    /// after it; returns `nil` (consuming `}`) when the object ends.
    mutating func nextKey(isFirst: inout Bool) throws(JSONSyntaxError) -> JSONStringToken? {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input inside an object") }
        if bytes[index] == UInt8(ascii: "}") {
            index += 1
            return nil
        }
        if !isFirst {
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or '}' in an object") }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { throw error("trailing comma in an object") }
        }
        isFirst = false
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw error("expected a quoted object key")
        }
        let key = try scanString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw error("expected ':' after an object key")
        }
        index += 1
        return key
    }

    /// Moves to the next element of an array opened with `open("[")`; returns `false`
    /// (consuming `]`) when the array ends.
    mutating func nextElement(isFirst: inout Bool) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input inside an array") }
        if bytes[index] == UInt8(ascii: "]") {
            index += 1
            return false
        }
        if !isFirst {
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or ']' in an array") }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw error("trailing comma in an array") }
        }
        isFirst = false
        return true
    }

    // MARK: Values

    /// Validates and skips one value of any kind; returns its kind.
    @discardableResult
    mutating func skipValue(depth: Int = 0) throws(JSONSyntaxError) -> JSONKind {
        let kind = try peekKind()
        switch kind {
        case .object:
            guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth) levels") }
            index += 1
            var first = true
            while try nextKey(isFirst: &first) != nil {
                try skipValue(depth: depth + 1)
            }
        case .array:
            guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth) levels") }
            index += 1
            var first = true
            while try nextElement(isFirst: &first) {
                try skipValue(depth: depth + 1)
            }
        case .string:
            _ = try scanString()
        case .number:
            try scanNumber()
        case .bool:
            if !consumeLiteral("true") && !consumeLiteral("false") { throw error("invalid literal") }
        case .null:
            if !consumeLiteral("null") { throw error("invalid literal") }
        }
        return kind
    }

    /// Scans a string starting at its opening quote; returns the range between the quotes.
    mutating func scanString() throws(JSONSyntaxError) -> JSONStringToken {
        index += 1  // opening quote
        let start = index
        var hasEscapes = false
        while index < bytes.count {
            skipPlainStringBytes()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let token = JSONStringToken(range: start..<index, hasEscapes: hasEscapes)
                index += 1
                return token
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    guard let unit = hex4(at: index + 1) else {
                        throw error(index + 4 < bytes.count ? "invalid \\u escape" : "truncated \\u escape")
                    }
                    index += 5
                    // The text rule (EventTextRule): no NUL, no lone surrogate. A high
                    // surrogate's pair is the escape right after it, consumed with it.
                    var next: UInt16?
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        next = hex4(at: index + 2)
                    }
                    if let problem = EventTextRule.problem(escape: unit, next: next) {
                        if textProblem == nil { textProblem = problem }
                    } else if (0xD800...0xDBFF).contains(unit) {
                        index += 6
                    }
                default:
                    throw error("invalid escape '\\\(Self.printable(bytes[index]))' in a string")
                }
            } else if byte < 0x20 {
                throw error("unescaped control character in a string")
            } else {
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// Moves to the next byte of a string that needs attention (a quote, a backslash or a
    /// control character), eight bytes at a time; near the end of the document it stops
    /// and leaves the rest to the byte loop.
    @inline(__always)
    private mutating func skipPlainStringBytes() {
        guard let base = bytes.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        while index + 8 <= bytes.count {
            let mask = Self.attentionMask(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if mask != 0 {
                // The lowest flagged byte is a true match (borrows only run upwards).
                index += mask.trailingZeroBitCount >> 3
                return
            }
            index += 8
        }
    }

    /// The high bit of each byte of `word` (read little-endian) that may be `"`, `\` or
    /// below 0x20. The lowest bit set always marks such a byte, and no word holding one
    /// gives 0; bytes above the first match may be flagged wrongly.
    @inline(__always)
    static func attentionMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        // x - 0x01 (or x - 0x20) borrows into a byte's high bit while the byte's own high
        // bit is clear exactly when it is zero (or below 0x20), up to the first such byte.
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & highs
    }

    /// Validates a number at the read position.
    mutating func scanNumber() throws(JSONSyntaxError) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
    }

    mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] {
            return false
        }
        index += count
        return true
    }

    // MARK: Decoding

    /// True when the token's text equals `literal` (keys are compared without decoding
    /// unless they contain escapes).
    func token(_ token: JSONStringToken, equals literal: StaticString) -> Bool {
        if token.hasEscapes {
            return (try? decode(token)) == literal.description  // an undecodable key matches nothing
        }
        let count = literal.utf8CodeUnitCount
        guard token.range.count == count else { return false }
        let pointer = literal.utf8Start
        var position = token.range.lowerBound
        for offset in 0..<count {
            if bytes[position] != pointer[offset] { return false }
            position += 1
        }
        return true
    }

    /// The text of a string token, with escapes resolved.
    func decode(_ token: JSONStringToken) throws(JSONSyntaxError) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[token.range])
        guard token.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        try decode(token, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the UTF-8 text of a string token, with escapes resolved, to `output`.
    func decode(_ token: JSONStringToken, into output: inout [UInt8]) throws(JSONSyntaxError) {
        let raw = UnsafeBufferPointer(rebasing: bytes[token.range])
        guard token.hasEscapes else {
            output.append(contentsOf: raw)
            return
        }
        var position = 0
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<4 { value = value << 4 | UInt32(Self.hexValue(raw[at + offset]) ?? 0) }
            return value
        }
        while position < raw.count {
            let byte = raw[position]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                position += 1
                continue
            }
            let escape = raw[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalarValue = hex4(position)
                position += 4
                if (0xD800...0xDBFF).contains(scalarValue), position + 6 <= raw.count,
                    raw[position] == UInt8(ascii: "\\"), raw[position + 1] == UInt8(ascii: "u")
                {
                    let low = hex4(position + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                        position += 6
                    }
                }
                guard let scalar = Unicode.Scalar(scalarValue) else {
                    throw JSONSyntaxError(
                        offset: token.range.lowerBound + position, message: "unpaired surrogate in a \\u escape")
                }
                output.append(contentsOf: UTF8.encode(scalar)!)
            default: output.append(escape)  // \" \\ \/
            }
        }
    }

    // MARK: Helpers

    /// The UTF-16 unit of the four hex digits at `position`, or nil when they are not
    /// four hex digits before the end.
    func hex4(at position: Int) -> UInt16? {
        guard position >= 0, position + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            guard let digit = Self.hexValue(bytes[position + offset]) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }
}

/// Checks that bytes are well-formed UTF-8 without copying them (`String(validating:as:)`
/// would copy a whole request body to answer the same question).
///
/// The rule is Unicode's (Table 3-7), the one the standard library applies: no overlong
/// forms, no surrogates (`ED A0`...`ED BF`), nothing above U+10FFFF, no truncated or
/// stray continuation bytes. Runs of ASCII are checked eight bytes at a time.
enum UTF8Validator {
    /// True when `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index < count {
            // ASCII fast path: eight bytes at a time while none has its high bit set.
            while index + 8 <= count,
                raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            guard index < count else { return true }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            // The allowed range of the second byte depends on the lead byte.
            let secondLow: UInt8
            let secondHigh: UInt8
            switch lead {
            case 0xC2...0xDF: length = 2; secondLow = 0x80; secondHigh = 0xBF
            case 0xE0: length = 3; secondLow = 0xA0; secondHigh = 0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3; secondLow = 0x80; secondHigh = 0xBF
            case 0xED: length = 3; secondLow = 0x80; secondHigh = 0x9F
            case 0xF0: length = 4; secondLow = 0x90; secondHigh = 0xBF
            case 0xF1...0xF3: length = 4; secondLow = 0x80; secondHigh = 0xBF
            case 0xF4: length = 4; secondLow = 0x80; secondHigh = 0x8F
            default: return false  // a continuation byte, C0, C1 or F5...FF
            }
            guard index + length <= count else { return false }
            let second = base[index + 1]
            guard second >= secondLow, second <= secondHigh else { return false }
            var position = index + 2
            while position < index + length {
                guard base[position] & 0xC0 == 0x80 else { return false }
                position += 1
            }
            index += length
        }
        return true
    }
}

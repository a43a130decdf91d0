/// Writes JSON into a byte buffer without Foundation: the hot path of `track` and of
/// building request bodies. Object keys are written in sorted order so that output is
/// deterministic (golden files, dedup by content, byte counts that do not wobble).
public struct JSONWriter: Sendable {
    /// The bytes written so far (UTF-8).
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends raw, already valid JSON bytes.
    public mutating func writeRaw<S: Sequence>(_ raw: S) where S.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    /// Appends raw, already valid JSON bytes from contiguous memory: one copy, where the
    /// generic sequence above, called from another module, goes byte by byte.
    public mutating func writeRaw(_ raw: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends a literal's bytes, already valid JSON (`writeRaw(#","messageId":"#)`): one
    /// copy of bytes the binary holds. Through the `Sequence` overload, a literal's
    /// `.utf8` went byte by byte: a fourteenth of each event's encoding in `track`.
    public mutating func writeRaw(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends one ASCII byte.
    public mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends a JSON value. Non-finite numbers (which validation refuses before they get
    /// here) are written as `null`, since JSON has no spelling for them.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): if flag { writeRaw("true") } else { writeRaw("false") }
        case .int(let number): write(number)
        case .double(let number): write(number)
        case .string(let text): write(text)
        case .array(let elements):
            writeByte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { writeByte(UInt8(ascii: ",")) }
                write(element)
            }
            writeByte(UInt8(ascii: "]"))
        case .object(let members):
            write(members)
        }
    }

    /// Appends an object, keys sorted.
    public mutating func write(_ members: [String: JSONValue]) {
        writeByte(UInt8(ascii: "{"))
        var first = true
        // Sorting the pairs, not the keys, spares a hash lookup per member.
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            if !first { writeByte(UInt8(ascii: ",")) }
            first = false
            write(key)
            writeByte(UInt8(ascii: ":"))
            write(value)
        }
        writeByte(UInt8(ascii: "}"))
    }

    /// Appends an integer.
    public mutating func write(_ number: Int) {
        if number == 0 {
            writeByte(UInt8(ascii: "0"))
            return
        }
        var magnitude = number.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
        }
        if number < 0 { writeByte(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { buffer in
            for index in stride(from: count - 1, through: 0, by: -1) {
                bytes.append(buffer[index])
            }
        }
    }

    /// Appends a floating-point number in its shortest round-trip form.
    public mutating func write(_ number: Double) {
        guard number.isFinite else {
            writeRaw("null")
            return
        }
        if abs(number) < 1e15, let whole = Int(exactly: number) {
            write(whole)
            return
        }
        writeRaw(number.description.utf8)
    }

    /// Appends a quoted, escaped string.
    public mutating func write(_ text: String) {
        writeByte(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                runStart = index + 1
                writeByte(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): writeByte(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): writeByte(UInt8(ascii: "\\"))
                case 0x0A: writeByte(UInt8(ascii: "n"))
                case 0x0D: writeByte(UInt8(ascii: "r"))
                case 0x09: writeByte(UInt8(ascii: "t"))
                case 0x08: writeByte(UInt8(ascii: "b"))
                case 0x0C: writeByte(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    writeRaw("u00")
                    writeByte(hex[Int(byte >> 4)])
                    writeByte(hex[Int(byte & 0x0F)])
                }
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        writeByte(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// This value as compact JSON bytes (keys sorted).
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }

    /// This value as a compact JSON string (keys sorted).
    public var jsonString: String {
        String(decoding: jsonBytes, as: UTF8.self)
    }
}

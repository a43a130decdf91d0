#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input as raw lines (bytes between `\n`, without it and without a final `\r`),
/// read in chunks, with nothing decoded or repaired.
struct StandardInputLines {
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// The next line, or `nil` at the end of input.
    mutating func next() throws(CLIError) -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var line = Array(buffer[start..<newline])
                start = newline + 1
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                var line = Array(buffer[start...])
                start = buffer.count
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .runtime("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<count]) }
        }
    }
}

/// UTF-8 validity on raw bytes, before anything decodes (and so repairs) them.
enum UTF8Check {
    /// The offset of the first byte that does not begin or continue a valid UTF-8
    /// sequence, or `nil` when all of `bytes` is valid UTF-8.
    static func firstInvalidByte(_ bytes: some Collection<UInt8>) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        var valid = 0  // bytes of the scalars decoded so far
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                valid += UTF8.width(scalar)
                offset = valid
            case .emptyInput:
                return nil
            case .error:
                return offset
            }
        }
    }

    /// The first command-line argument that is not valid UTF-8, named by the flag it
    /// belongs to (`--name`, or the argument's position), or `nil` when all are valid.
    /// Swift's `CommandLine.arguments` has already repaired them, so this reads argv.
    static func firstInvalidArgument() -> String? {
        let count = Int(CommandLine.argc)
        var previous: String?
        for index in 1..<max(1, count) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if firstInvalidByte(bytes) != nil {
                let prefix = bytes.prefix { $0 != UInt8(ascii: "=") }
                if bytes.first == UInt8(ascii: "-"), prefix.count < bytes.count, firstInvalidByte(prefix) == nil {
                    return "the value of \(String(decoding: prefix, as: UTF8.self))"  // --name=VALUE
                }
                if let previous, previous.hasPrefix("-") { return "the value of \(previous)" }
                return "argument \(index)"
            }
            previous = String(decoding: bytes, as: UTF8.self)
        }
        return nil
    }
}

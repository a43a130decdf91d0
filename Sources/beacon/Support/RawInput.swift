#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input (or another open file) as raw lines (bytes between `\n`, without it and without a final `\r`),
/// read in chunks, with nothing decoded or repaired.
///
/// A line longer than `maxLineBytes` is not kept: its bytes are skipped up to the next
/// `\n` and it comes back as ``Line/tooLong(bytes:)``, so that one huge line (a JSON
/// array dumped on one line) costs neither its size in memory nor a rescan per chunk.
struct StandardInputLines {
    enum Line: Equatable {
        case text([UInt8])
        /// A line of `bytes` bytes (without its `\n`), past the limit.
        case tooLong(bytes: Int)
    }

    let maxLineBytes: Int
    /// The descriptor read, and its name for errors.
    let descriptor: Int32
    let name: String
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next `\n` goes on: the bytes before it hold none.
    private var scanned = 0
    /// Bytes of the line being skipped (past the limit), or `nil` when none is.
    private var skipped: Int?
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(maxLineBytes: Int, descriptor: Int32 = 0, name: String = "standard input") {
        self.maxLineBytes = maxLineBytes
        self.descriptor = descriptor
        self.name = name
    }

    /// The next line, or `nil` at the end of input.
    mutating func next() throws(CLIError) -> Line? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = take(upTo: newline)
                start = newline + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            if atEnd {
                guard start < buffer.count || skipped != nil else { return nil }
                let line = take(upTo: buffer.count)
                start = buffer.count
                return line
            }
            if buffer.count - start > maxLineBytes {
                // Past the limit: count the bytes instead of keeping them.
                skipped = (skipped ?? 0) + buffer.count - start
                start = buffer.count
            }
            if start > 0 {
                buffer.removeFirst(start)
                scanned -= start
                start = 0
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .runtime("cannot read \(name): \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<count]) }
        }
    }

    /// The line from `start` to `end` (exclusive), or how long it was when it is skipped.
    private mutating func take(upTo end: Int) -> Line {
        if let skipped {
            self.skipped = nil
            return .tooLong(bytes: skipped + end - start)
        }
        guard end - start <= maxLineBytes else { return .tooLong(bytes: end - start) }
        var line = Array(buffer[start..<end])
        if line.last == 0x0D { line.removeLast() }
        return .text(line)
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

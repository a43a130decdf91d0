import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a child's pipes with read(2), retrying when a signal interrupts it. Foundation's
/// `availableData` and `readDataToEndOfFile()` trap on EINTR (a `try!` inside), and this
/// process does get signals while it reads: children exit, and some tests signal them.
enum PipeReader {
    /// The next chunk of `handle`, empty at the end of the stream (or on a read error).
    static func chunk(_ handle: FileHandle) -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Everything left in `handle`, up to the end of the stream.
    static func all(_ handle: FileHandle) -> Data {
        var result = Data()
        while true {
            let next = chunk(handle)
            if next.isEmpty { return result }
            result.append(next)
        }
    }
}

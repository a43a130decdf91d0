#if canImport(Glibc)
import Glibc
#endif

/// Writes a file a command produces (`dead export --out FILE`) and checks every step:
/// each write, the sync and the close, so a full disk or a device that refuses the bytes
/// (`/dev/full`) is an error in one line instead of an export lost in silence.
///
/// A regular file (or a new one) is replaced whole: the bytes go to a temporary file
/// beside it, which is synced and then renamed over it, so a failed export leaves the old
/// file as it was. Anything else (a device, a FIFO) is written in place.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String) throws(CLIError) {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            try writeInPlace(bytes, to: path)
        } else {
            try replace(path, with: bytes, mode: stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil)
        }
    }

    private static func failure(_ path: String, _ code: Int32) -> CLIError {
        .runtime("cannot write \(path): \(String(cString: strerror(code)))")
    }

    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws(CLIError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, errno) }
        if let code = writeAll(bytes, to: descriptor) {
            close(descriptor)
            throw failure(path, code)
        }
        guard close(descriptor) == 0 else { throw failure(path, errno) }
    }

    private static func replace(_ path: String, with bytes: [UInt8], mode: mode_t?) throws(CLIError) {
        // The target's real path, so that a symbolic link keeps pointing at the new file.
        let target: String
        if let resolved = realpath(path, nil) {
            target = String(cString: resolved)
            free(resolved)
        } else {
            target = path
        }
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array("\(directory.isEmpty ? "" : directory)/.\(name).XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { throw failure(path, errno) }
        let temporary = String(cString: template)
        var code = writeAll(bytes, to: descriptor)
        if code == nil {
            let current = umask(0)
            umask(current)
            if fchmod(descriptor, mode ?? (0o666 & ~current)) != 0 || fsync(descriptor) != 0 { code = errno }
        }
        if close(descriptor) != 0, code == nil { code = errno }
        if code == nil, rename(temporary, target) != 0 { code = errno }
        if let code {
            unlink(temporary)
            throw failure(path, code)
        }
    }

    /// Writes every byte; the `errno` of the first failure, or `nil`.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : ENOSPC }
            offset += written
        }
        return nil
    }
}

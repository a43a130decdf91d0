import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal for a benchmark's child that needs one (the dashboard): the child gets
/// the terminal side as stdin, stdout and stderr; the benchmark holds the other side, reads
/// (and discards) what the child paints, and types keys into it.
final class PseudoTerminal {
    /// The benchmark's side.
    let controller: Int32
    /// The path of the child's side (`/dev/pts/N`).
    let devicePath: String

    /// Opens one of `columns` × `rows`.
    init(columns: UInt16 = 80, rows: UInt16 = 24) throws {
        guard let functions = Self.functions else {
            throw CLIError.runtime("bench: this C library has no posix_openpt, grantpt, unlockpt and ptsname_r")
        }
        let descriptor = functions.open(O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { throw Self.failure("posix_openpt") }
        var name = [CChar](repeating: 0, count: 128)
        guard functions.grant(descriptor) == 0, functions.unlock(descriptor) == 0,
            functions.name(descriptor, &name, name.count) == 0
        else {
            let error = Self.failure("grantpt/unlockpt/ptsname_r")
            close(descriptor)
            throw error
        }
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(descriptor, UInt(TIOCSWINSZ), &size) == 0 else {
            let error = Self.failure("setting the terminal's size")
            close(descriptor)
            throw error
        }
        controller = descriptor
        devicePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        close(controller)
    }

    /// Types `text` into the terminal.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
    }

    /// Reads and discards what the child writes, for `duration`: the child never blocks on
    /// a full terminal. Returns the bytes read.
    @discardableResult
    func discardOutput(for duration: Duration) -> Int {
        let deadline = ContinuousClock.now + duration
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return total }
            var poller = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: max(1, left.inMilliseconds)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            // EIO: the child's side is closed (it exited); nothing more will come.
            guard count > 0 else { return total }
            total += count
        }
    }

    /// glibc declares the pseudo-terminal calls only under `_XOPEN_SOURCE`, which the Swift
    /// module does not set: they are looked up by name, as `BenchChild` looks up
    /// `posix_spawn_file_actions_addclosefrom_np`.
    private static let functions:
        (
            open: @convention(c) (Int32) -> Int32, grant: @convention(c) (Int32) -> Int32,
            unlock: @convention(c) (Int32) -> Int32, name: @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32
        )? = {
            func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) }
            guard let open = symbol("posix_openpt"), let grant = symbol("grantpt"), let unlock = symbol("unlockpt"),
                let name = symbol("ptsname_r")
            else { return nil }
            return (
                unsafeBitCast(open, to: (@convention(c) (Int32) -> Int32).self),
                unsafeBitCast(grant, to: (@convention(c) (Int32) -> Int32).self),
                unsafeBitCast(unlock, to: (@convention(c) (Int32) -> Int32).self),
                unsafeBitCast(name, to: (@convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32).self)
            )
        }()

    private static func failure(_ step: String) -> CLIError {
        CLIError.runtime("bench: cannot open a pseudo-terminal (\(step)): \(String(cString: strerror(errno)))")
    }
}

import BeaconWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the CLI writes on stdout and stderr. Every line of text goes through
/// ``PrintableText`` (a server's body, a refusal's reason, an argument echoed back cannot
/// drive the terminal), and every write is checked: the first failure on stdout (a full
/// disk, `/dev/full`) is kept, and ``BeaconCommand`` reports it instead of exiting 0.
enum Output {
    /// The first failed write on stdout: its reason (`strerror`), or `nil`.
    private static let stdoutFailure = Mutex<String?>(nil)

    /// Writes a line of text to stdout at once (scripts read stdout as it comes).
    static func line(_ text: String) {
        write(PrintableText.line(text) + "\n", to: STDOUT_FILENO)
    }

    /// Writes a line of compact JSON (``JSONWriter``'s) to stdout, unsafe characters
    /// inside its strings escaped the JSON way (`\u009b`), so it stays valid JSON.
    static func json(_ text: String) {
        write(PrintableText.compactJSON(text) + "\n", to: STDOUT_FILENO)
    }

    /// Writes text as it is (help screens, ids the command made itself), newline added.
    static func raw(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes a line to stderr.
    static func error(_ text: String) {
        write(PrintableText.line(text) + "\n", to: STDERR_FILENO)
    }

    /// Why stdout could not be written, once a write failed.
    static var failure: String? { stdoutFailure.withLock { $0 } }

    /// Throws the stdout failure, if any, as a ``CLIError`` (exit 1): for commands that
    /// should stop writing once their output is lost.
    static func check() throws(CLIError) {
        if let failure { throw .runtime("cannot write to standard output: \(failure)") }
    }

    private static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let reason = written < 0 ? String(cString: strerror(errno)) : "nothing was written"
                if descriptor == STDOUT_FILENO { stdoutFailure.withLock { $0 = $0 ?? reason } }
                return  // stderr failing leaves nowhere to say so: the exit code still tells
            }
            offset += written
        }
    }
}

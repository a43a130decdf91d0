import BeaconWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the CLI writes on stdout and stderr. Every line of text goes through
/// ``PrintableText`` (a server's body, a refusal's reason, an argument echoed back cannot
/// drive the terminal), and every write is checked: the first failure on stdout (a full
/// disk, `/dev/full`) is kept, and ``BeaconCommand`` reports it instead of exiting 0.
///
/// A reader that closed its end of a pipe (`beacon status | head -1`) is not a failure:
/// it read what it wanted. The CLI ignores SIGPIPE (``ignoreBrokenPipes()``), so such a
/// write fails with EPIPE; stdout is then written no more, nothing is said, and the
/// command finishes its work and exits as it would have (as ripgrep does). `track
/// --print-ids | head -1` stores every event instead of dying at the second id.
enum Output {
    /// What became of stdout.
    private enum StdoutState {
        case open
        /// Its reader closed the pipe (EPIPE): nothing more is written, nothing is said.
        case readerGone
        /// A write failed for another reason (`strerror`): reported, exit 1.
        case failed(String)
    }

    private static let stdoutState = Mutex(StdoutState.open)

    /// Makes a write to a pipe whose reader is gone fail with EPIPE instead of killing the
    /// process with SIGPIPE, which would end a `track` halfway with no word. Children the
    /// CLI starts (`bench`'s collectors and agents) are `beacon` too, and do the same.
    static func ignoreBrokenPipes() {
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

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

    /// Why stdout could not be written, once a write failed (not when its reader left).
    static var failure: String? {
        stdoutState.withLock { state in
            if case .failed(let reason) = state { return reason }
            return nil
        }
    }

    /// Whether stdout's reader closed the pipe: output meant for it goes nowhere.
    static var readerGone: Bool {
        stdoutState.withLock { state in
            if case .readerGone = state { return true }
            return false
        }
    }

    /// For commands whose whole work is their output (`dead export`): throws the stdout
    /// failure, if any, as a ``CLIError`` (exit 1), and returns `false` once the reader is
    /// gone, so they stop, quietly.
    static func check() throws(CLIError) -> Bool {
        try stdoutState.withLock { state throws(CLIError) in
            switch state {
            case .open: return true
            case .readerGone: return false
            case .failed(let reason): throw .runtime("cannot write to standard output: \(reason)")
            }
        }
    }

    private static func write(_ text: String, to descriptor: Int32) {
        if descriptor == STDOUT_FILENO, stdoutState.withLock({ if case .open = $0 { false } else { true } }) { return }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let code = errno
                let reason = written < 0 ? String(cString: strerror(code)) : "nothing was written"
                if descriptor == STDOUT_FILENO {
                    stdoutState.withLock { state in
                        guard case .open = state else { return }
                        state = written < 0 && code == EPIPE ? .readerGone : .failed(reason)
                    }
                }
                return  // stderr failing leaves nowhere to say so: the exit code still tells
            }
            offset += written
        }
    }
}

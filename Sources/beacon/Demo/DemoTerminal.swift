import BeaconTerminal
#if canImport(Glibc)
import Glibc
#endif

/// The dashboard commands' terminal requirement, checked before anything is started so
/// that a script gets one clear line instead of a half-built demo.
enum DemoTerminalCheck {
    /// Throws a runtime error (exit 1) when standard input or output is not a terminal.
    static func require(command: String) throws(CLIError) {
        if isatty(STDIN_FILENO) != 1 { throw notATerminal(command: command, stream: "input") }
        if isatty(STDOUT_FILENO) != 1 { throw notATerminal(command: command, stream: "output") }
    }

    /// A ``TerminalError`` from the dashboard, as the CLI reports it.
    static func cli(_ error: TerminalError, command: String) -> CLIError {
        switch error {
        case .notATerminal(let stream): return notATerminal(command: command, stream: stream)
        case .unusableTerminal: return .runtime("\(command): \(error)")
        }
    }

    private static func notATerminal(command: String, stream: String) -> CLIError {
        .runtime(
            "\(command) draws a dashboard and needs a terminal, but standard \(stream) is not one; "
                + "in scripts use 'beacon track --db FILE' to enqueue and 'beacon flush --db FILE --endpoint URL' to send")
    }
}

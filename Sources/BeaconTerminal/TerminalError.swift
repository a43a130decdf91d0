/// Why the dashboard could not take over the terminal.
public enum TerminalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Standard input or output is a file or a pipe, not a terminal.
    case notATerminal(stream: String)
    /// `TERM` is missing, `dumb`, or has no terminfo entry.
    case unusableTerminal(term: String?, reason: String)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .notATerminal(let stream):
            return "the dashboard needs a terminal, but standard \(stream) is not one (run it in a terminal, not through a pipe or redirect)"
        case .unusableTerminal(let term, let reason):
            let name = term.map { "TERM=\($0)" } ?? "TERM"
            return "cannot draw the dashboard with \(name): \(reason) (try TERM=xterm-256color)"
        }
    }
}

import Beacon
import BeaconWire

extension Renderer {
    /// The operator-log view (`l`), in place of the history and destinations: who changed
    /// what, newest first, each command applied or refused with the engine's reason.
    mutating func drawOperatorLog(y: Int, rows: Int) {
        let view = state.operatorLog
        drawSectionTitle("Operator actions", detail: "· kept in the store · newest first · also ctl log", y: y)
        guard rows >= 1 else { return }
        var line = y + 1
        guard !view.isUnavailable else {
            grid.write(" not available: this engine keeps no store to read", x: 0, y: line, style: .dim, maxWidth: width)
            return
        }
        if let error = view.readError {
            grid.write(" could not read the log: \(PrintableText.line(error))", x: 0, y: line, style: .error, maxWidth: width)
            line += 1
        }
        guard let actions = view.actions else {
            if line < y + 1 + rows { grid.write(" reading the log…", x: 0, y: line, style: .dim, maxWidth: width) }
            return
        }
        guard !actions.isEmpty else {
            if line < y + 1 + rows {
                grid.write(" no command kept yet: ctl and an attached console's commands are listed here", x: 0, y: line, style: .dim,
                           maxWidth: width)
            }
            return
        }
        guard line < y + 1 + rows else { return }
        grid.write(" " + "at".padRight(8) + "  " + "ago".padLeft(6) + "  " + "peer".padRight(19) + "command", x: 0, y: line, style: .dim,
                   maxWidth: width)
        line += 1
        for action in actions {
            guard line < y + 1 + rows else { break }
            let (age, overflow) = snapshot.time.millisecondsSince1970.subtractingReportingOverflow(action.at.millisecondsSince1970)
            let peer = action.peerUID.map { "uid \($0) pid \(action.peerPID.map(String.init) ?? "?")" } ?? "unknown peer"
            let command = PrintableText.line(action.command + (action.argument.map { " " + $0 } ?? ""))
            grid.write([
                Span(" " + Format.timeOfDay(millisecondsSince1970: action.at.millisecondsSince1970) + "  "),
                Span((overflow ? "?" : Format.age(milliseconds: age)).padLeft(6) + "  ", .dim),
                Span(peer.elidedRight(toWidth: 18).padRight(19)),
                Span(command + "  ", .bold),
                action.applied ? Span("applied", .dim) : Span("refused", .warn),
            ], x: 0, y: line, maxWidth: width)
            // A refusal's reason on a line of its own: the facts first, the reason whole below.
            if !action.applied, line + 1 < y + 1 + rows {
                line += 1
                let reason = "  ↳ " + PrintableText.line(action.reason ?? "no reason given")
                grid.write(reason.elidedRight(toWidth: width), x: 0, y: line, style: .warn, maxWidth: width)
            }
            line += 1
        }
    }
}

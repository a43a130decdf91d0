#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconDashboard
import CNCurses

/// The terminal while the dashboard owns it: set up by `init`, given back by ``close()``.
///
/// Paints ``CellGrid``s by writing only the cells that changed since the last frame, and
/// reads keys without ever blocking. Nothing else may write to stdout while it is open.
///
/// ```swift
/// let screen = try TerminalScreen()
/// defer { screen.close() }
/// screen.paint(grid)
/// while let key = screen.nextKey() { … }
/// await screen.waitForActivity(atMost: .milliseconds(250))
/// ```
@MainActor
public final class TerminalScreen {
    /// Columns and rows right now.
    public var size: (width: Int, height: Int) {
        (Int(beacon_getmaxx(beacon_stdscr())), Int(beacon_getmaxy(beacon_stdscr())))
    }

    /// The first SIGINT or SIGTERM received since opening, if any.
    public var receivedSignal: Int32? { signals.received }

    /// Whether colours are in use (off with `NO_COLOR` or on a terminal without them).
    public var usesColor: Bool { palette.usesColor }

    let screen: OpaquePointer
    let palette: TerminalPalette
    var previous: CellGrid?
    private let signals: SignalWatcher
    let wakeup: LoopWakeup
    private var isClosed = false

    /// Takes over the terminal. Checks stdin, stdout and `TERM` before touching ncurses,
    /// so a pipe or a bad `TERM` gives a ``TerminalError`` instead of a garbled screen.
    public init() throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1 else { throw .notATerminal(stream: "input") }
        guard isatty(STDOUT_FILENO) == 1 else { throw .notATerminal(stream: "output") }
        guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty else {
            throw .unusableTerminal(term: nil, reason: "TERM is not set")
        }
        guard term != "dumb" else {
            throw .unusableTerminal(term: term, reason: "a dumb terminal cannot move the cursor")
        }
        setlocale(LC_ALL, "")
        let wakeup = LoopWakeup(input: STDIN_FILENO)
        let signals = SignalWatcher { wakeup.poke() }
        guard let screen = beacon_newterm(term) else {
            signals.stop()
            wakeup.cancel()
            throw .unusableTerminal(term: term, reason: "no terminfo entry for it")
        }
        self.screen = screen
        self.signals = signals
        self.wakeup = wakeup
        let window = beacon_stdscr()
        cbreak()
        noecho()
        keypad(window, true)
        nodelay(window, true)
        set_escdelay(25)
        curs_set(0)
        palette = TerminalPalette.start(environmentNoColor: getenv("NO_COLOR").map { String(cString: $0) })
    }

    /// Gives the terminal back (`endwin`, once, however often it is called) and stops
    /// watching signals.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        curs_set(1)
        endwin()
        delscreen(screen)
        signals.stop()
        wakeup.cancel()
    }

    /// Waits for something to do: a key, a signal, a ``wake()``, or `timeout` at the latest.
    /// A run loop calls it between ticks instead of polling, and so costs nothing while
    /// nothing happens. Returns at once if something came since the last call.
    public func waitForActivity(atMost timeout: Duration) async {
        let (whole, attoseconds) = timeout.components
        let milliseconds = max(0, min(whole, 3_600)) * 1_000 + max(0, attoseconds) / 1_000_000_000_000_000
        await wakeup.wait(atMost: .milliseconds(Int(clamping: milliseconds)))
    }

    /// Ends the current (or the next) ``waitForActivity(atMost:)``: a snapshot arrived, or
    /// anything else the screen should show.
    public func wake() {
        wakeup.poke()
    }

    /// Forgets the last frame so the next ``paint(_:)`` redraws every cell, and has
    /// ncurses clear the physical screen first (after a resize).
    public func invalidate() {
        previous = nil
        werase(beacon_stdscr())
        clearok(beacon_curscr(), true)
    }
}

import Dispatch
import CNCurses

/// Turns SIGINT and SIGTERM into a flag the run loop reads, through dispatch signal
/// sources on the main queue: no code runs inside a C signal handler.
@MainActor
final class SignalWatcher {
    /// The first termination signal received, if any.
    private(set) var received: Int32?
    private var sources: [DispatchSourceSignal] = []
    private static let watched: [Int32] = [SIGINT, SIGTERM]

    /// Starts watching; `onSignal` runs on the main actor as each signal arrives (to wake
    /// the run loop). Must run before `newterm`, so ncurses sees the signals ignored and
    /// leaves them to us.
    init(onSignal: @escaping @MainActor () -> Void) {
        for signal in Self.watched {
            beacon_signal_ignore(signal)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler { [weak self] in
                // The source delivers on the main queue, which is the main actor's executor.
                MainActor.assumeIsolated {
                    if self?.received == nil { self?.received = signal }
                    onSignal()
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops watching and gives the signals their default meaning back.
    func stop() {
        for source in sources { source.cancel() }
        sources = []
        for signal in Self.watched { beacon_signal_default(signal) }
    }
}

import Logging
import Synchronization

/// Keeps a line that every refused request would log from flooding the log: per kind, the
/// first line goes out, then at most one per ``interval``, saying how many like it were
/// held back since the last (`suppressed`). A client that ignores `Retry-After` and posts
/// in a loop to a full agent made two warnings per request: 10,000 lines in 5 seconds.
///
/// Kinds are the collector's own (a message and an error code from its catalogue), never
/// text from a request, so the table stays as small as the catalogue.
final class LogThrottle: Sendable {
    /// What to do with one line.
    struct Decision: Hashable {
        /// Whether the line goes out.
        var logs: Bool
        /// When it does: lines of its kind held back since the last one that went out.
        var suppressed: Int
    }

    private struct Kind {
        /// When the last line of this kind went out.
        var lastLogged: ContinuousClock.Instant
        var suppressed: Int
    }

    /// The least time between two lines of one kind.
    let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let kinds = Mutex<[String: Kind]>([:])

    /// - Parameter now: the clock; tests inject one.
    init(interval: Duration = .seconds(10), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.interval = interval
        self.now = now
    }

    /// Whether a line of `kind` goes out now.
    func admit(_ kind: String) -> Decision {
        let instant = now()
        return kinds.withLock { kinds in
            guard var current = kinds[kind] else {
                kinds[kind] = Kind(lastLogged: instant, suppressed: 0)
                return Decision(logs: true, suppressed: 0)
            }
            guard current.lastLogged.duration(to: instant) >= interval else {
                current.suppressed += 1
                kinds[kind] = current
                return Decision(logs: false, suppressed: 0)
            }
            let held = current.suppressed
            kinds[kind] = Kind(lastLogged: instant, suppressed: 0)
            return Decision(logs: true, suppressed: held)
        }
    }
}

extension Logger {
    /// Logs `message` at `level` unless `throttle` holds back its `kind`; a line that goes
    /// out after some were held back says how many (`suppressed`).
    func log(
        _ level: Logger.Level, _ message: @autoclosure () -> Logger.Message, kind: String, throttle: LogThrottle,
        metadata: @autoclosure () -> Logger.Metadata = [:]
    ) {
        guard logLevel <= level else { return }
        let decision = throttle.admit(kind)
        guard decision.logs else { return }
        var fields = metadata()
        if decision.suppressed > 0 { fields["suppressed"] = "\(decision.suppressed)" }
        log(level: level, message(), metadata: fields)
    }
}

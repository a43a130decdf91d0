import Synchronization

/// Keeps a line that every request or every batch would log from flooding the log: per
/// kind, the first line goes out, then at most one per ``interval``, saying how many like
/// it were held back since the last (`suppressed`). A client that ignores `Retry-After`
/// and posts in a loop to a full agent made two warnings per request: 10,000 lines in 5
/// seconds. (Here because the engine and the collector both use it, and this is the one
/// module both import; it needs no logging library, its callers log.)
///
/// Kinds are the caller's own (a message and an error code from a catalogue), never text
/// from outside, so the table stays as small as the catalogue.
public final class LogThrottle: Sendable {
    /// What to do with one line.
    public struct Decision: Sendable, Hashable {
        /// Whether the line goes out.
        public var logs: Bool
        /// When it does: lines of its kind held back since the last one that went out.
        public var suppressed: Int

        public init(logs: Bool, suppressed: Int) {
            self.logs = logs
            self.suppressed = suppressed
        }
    }

    private struct Kind {
        /// When the last line of this kind went out.
        var lastLogged: ContinuousClock.Instant
        var suppressed: Int
    }

    /// The least time between two lines of one kind.
    public let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let kinds = Mutex<[String: Kind]>([:])

    /// - Parameter now: the clock; tests inject one.
    public init(interval: Duration = .seconds(10), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.interval = interval
        self.now = now
    }

    /// Whether a line of `kind` goes out now.
    public func admit(_ kind: String) -> Decision {
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

import Synchronization

/// The counts per event name a ``Tracker`` keeps as it accepts events (bounded:
/// ``EventNameCounts``), shared with the observer that lists the busiest.
public final class EventNameCounter: Sendable {
    private let counts: Mutex<EventNameCounts>

    public init(capacity: Int = 64) {
        counts = Mutex(EventNameCounts(capacity: capacity))
    }

    /// The counts now.
    public var current: EventNameCounts { counts.withLock { $0 } }

    /// Counts one accepted event under each of `names`.
    public func add(_ names: some Sequence<String>) {
        counts.withLock { counts in
            for name in names { counts.add(name) }
        }
    }
}

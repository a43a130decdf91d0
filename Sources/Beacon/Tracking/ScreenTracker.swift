import Synchronization

/// Turns screens and app lifecycle into events, so feature code makes one call per screen
/// (or none, when a lifecycle source feeds ``handle(_:)``). Time on screen is measured on
/// an injected monotonic clock and excludes time in background.
///
/// ```swift
/// let screens = ScreenTracker(tracker: engine.tracker, clock: ContinuousClock())
/// try screens.enter("Checkout")      // Screen Exited (previous), Screen Viewed
/// try screens.handle(.didEnterBackground)
/// ```
///
/// Events: `Screen Viewed` (`name`, `previous_screen`), `Screen Exited` (`name`,
/// `duration_ms`), `Application Backgrounded` (`screen`), `Application Foregrounded`
/// (`screen`, `background_ms`). See ``ScreenEvent``.
public final class ScreenTracker<C: Clock>: Sendable where C.Duration == Duration {
    private let tracker: Tracker
    private let clock: C
    private let origin: C.Instant
    private let session = Mutex(ScreenSession())

    /// Creates a screen tracker sending through `tracker`, timing on `clock`.
    public init(tracker: Tracker, clock: C) {
        self.tracker = tracker
        self.clock = clock
        self.origin = clock.now
    }

    /// The screen shown now, if any.
    public var currentScreen: String? { session.withLock { $0.current } }

    /// Shows `name`: exits the current screen (if any), then sends `Screen Viewed`.
    public func enter(_ name: String) throws(TrackingError) {
        try send { session, now in session.enter(name, now: now) }
    }

    /// Leaves the current screen (sends `Screen Exited`); nothing if none is shown.
    public func exit() throws(TrackingError) {
        try send { session, now in session.exit(now: now) }
    }

    /// Applies a lifecycle event.
    public func handle(_ event: LifecycleEvent) throws(TrackingError) {
        try send { session, now in session.handle(event, now: now) }
    }

    /// Decides under the lock (so concurrent calls see one order of states), then tracks
    /// each event; the first refusal is thrown after the others are tracked.
    private func send(_ decide: (inout ScreenSession, Duration) -> [ScreenEvent]) throws(TrackingError) {
        let events = session.withLock { session in decide(&session, origin.duration(to: clock.now)) }
        var firstError: TrackingError?
        for event in events {
            do {
                try tracker.track(event.name, properties: event.properties)
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }
}

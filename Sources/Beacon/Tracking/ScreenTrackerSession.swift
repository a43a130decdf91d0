import BeaconWire

/// The decisions of screen tracking as a pure state machine: times in, events out.
/// `now` is time on a monotonic clock since any fixed origin.
struct ScreenSession: Sendable, Hashable {
    private var screen: String?
    /// Visible time of the current screen accumulated before the last resume.
    private var visibleBefore: Duration = .zero
    /// When the current screen last became visible (nil while in background).
    private var visibleSince: Duration?
    private var backgroundSince: Duration?

    /// The screen shown now.
    var current: String? { screen }
    var isInBackground: Bool { backgroundSince != nil }

    mutating func enter(_ name: String, now: Duration) -> [ScreenEvent] {
        let previous = screen
        var events = exit(now: now)
        screen = name
        visibleBefore = .zero
        visibleSince = isInBackground ? nil : now
        events.append(.viewed(name: name, previous: previous))
        return events
    }

    mutating func exit(now: Duration) -> [ScreenEvent] {
        guard let name = screen else { return [] }
        let visible = visibleBefore + (visibleSince.map { now - $0 } ?? .zero)
        screen = nil
        visibleBefore = .zero
        visibleSince = nil
        return [.exited(name: name, visible: visible)]
    }

    mutating func handle(_ event: LifecycleEvent, now: Duration) -> [ScreenEvent] {
        switch event {
        case .didEnterBackground:
            guard !isInBackground else { return [] }
            if let since = visibleSince { visibleBefore += now - since }
            visibleSince = nil
            backgroundSince = now
            return [.backgrounded(screen: screen)]
        case .willEnterForeground:
            guard let since = backgroundSince else { return [] }
            backgroundSince = nil
            if screen != nil { visibleSince = now }
            return [.foregrounded(screen: screen, background: now - since)]
        case .willTerminate:
            return exit(now: now)
        }
    }
}

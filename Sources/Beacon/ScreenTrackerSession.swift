import BeaconWire

/// What the app's lifecycle says (fed by a platform adapter, or by hand).
public enum LifecycleEvent: Sendable, Hashable {
    /// The app left the screen: visible time stops counting.
    case didEnterBackground
    /// The app is coming back: visible time counts again.
    case willEnterForeground
    /// The process is about to end: the current screen is exited.
    case willTerminate
}

/// The events screen tracking sends, with their properties.
public enum ScreenEvent: Sendable, Hashable {
    /// `Screen Viewed`: `name`, `previous_screen` (absent on the first screen).
    case viewed(name: String, previous: String?)
    /// `Screen Exited`: `name`, `duration_ms` (visible time only).
    case exited(name: String, visible: Duration)
    /// `Application Backgrounded`: `screen` (absent when none is shown).
    case backgrounded(screen: String?)
    /// `Application Foregrounded`: `screen`, `background_ms`.
    case foregrounded(screen: String?, background: Duration)

    /// The event's name.
    public var name: String {
        switch self {
        case .viewed: return "Screen Viewed"
        case .exited: return "Screen Exited"
        case .backgrounded: return "Application Backgrounded"
        case .foregrounded: return "Application Foregrounded"
        }
    }

    /// The event's properties.
    public var properties: [String: JSONValue] {
        switch self {
        case .viewed(let name, let previous):
            var properties: [String: JSONValue] = ["name": .string(name)]
            if let previous { properties["previous_screen"] = .string(previous) }
            return properties
        case .exited(let name, let visible):
            return ["name": .string(name), "duration_ms": .int(ScreenEvent.milliseconds(visible))]
        case .backgrounded(let screen):
            return screen.map { ["screen": .string($0)] } ?? [:]
        case .foregrounded(let screen, let background):
            var properties: [String: JSONValue] = ["background_ms": .int(ScreenEvent.milliseconds(background))]
            if let screen { properties["screen"] = .string(screen) }
            return properties
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

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

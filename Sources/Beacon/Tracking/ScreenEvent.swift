import BeaconWire

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
        Int(truncatingIfNeeded: duration.inMilliseconds)
    }
}

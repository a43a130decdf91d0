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

import Beacon

/// Whether the dashboard drives an engine (`beacon demo`), watches a store read-only
/// (`beacon monitor`), or drives another process's engine through its control channel
/// (`beacon monitor` when an engine serves the store).
public enum DashboardMode: Sendable, Hashable {
    /// Keys drive the in-process engine, generator and collector.
    case demo
    /// Read-only: engine commands are refused with a message.
    case monitor
    /// Attached to another process's engine: `f`, `p`, `o`, `+` and `-` act on it; the
    /// demo's generator, burst, fault and sync keys are refused with a message.
    case attached
}

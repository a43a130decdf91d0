import Beacon

/// Whether the dashboard drives an engine (`beacon demo`) or watches a store read-only
/// (`beacon monitor`).
public enum DashboardMode: Sendable, Hashable {
    /// Keys drive the in-process engine, generator and collector.
    case demo
    /// Read-only: engine commands are refused with a message.
    case monitor
}

/// Why ``runDashboard(snapshots:mode:initialState:perform:)`` returned.
public enum DashboardExit: Sendable, Hashable {
    /// The user pressed `q`.
    case quit
    /// SIGINT (Ctrl-C) or SIGTERM arrived; `.quit` was performed as for `q`.
    case interrupted(signal: Int32)
    /// The snapshot stream finished (the engine or the watched store went away).
    case snapshotsEnded
}

/// What the fleet screen asks for: an action on one engine, or to leave.
public enum FleetAction: Sendable, Hashable {
    /// Engine `index` (in ``FleetState/names``' order) should do `action`.
    case engine(Int, DashboardAction)
    /// Leave the dashboard.
    case quit
}

import BeaconDashboard
import CNCurses

/// The ncurses painter (issue: dashboard).
public enum TerminalModule {}

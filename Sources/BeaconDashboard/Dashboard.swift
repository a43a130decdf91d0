import Beacon

/// Dashboard state, reducer and renderer (issue: dashboard).
public enum DashboardModule {}

import BeaconWire

/// The HTTP collector (issue: delivery). Filled in by the collector work.
public enum CollectorModule {}

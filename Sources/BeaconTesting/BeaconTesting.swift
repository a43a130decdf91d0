import Beacon

/// Fakes for tests: manual clock, recording sender.
public enum BeaconTestingModule {}

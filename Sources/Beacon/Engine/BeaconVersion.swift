import BeaconWire

/// Beacon's version, as sent in `context.library` and the `User-Agent`.
public enum BeaconVersion {
    public static let current = "0.1.0"
}

/// Beacon's version: sent in `context.library` and the `User-Agent`, printed by
/// `beacon --version`, and reported by a running engine (`ctl status`), a collector's or
/// an agent's `/health`, and `/metrics` (`beacon_build_info{version="…"} 1`), so an
/// operator can tell which build answers.
///
/// Each release changes it, with its entry in `CHANGELOG.md`.
public enum BeaconVersion {
    /// The version of this build, `MAJOR.MINOR.PATCH`.
    public static let current = "0.6.0"
}

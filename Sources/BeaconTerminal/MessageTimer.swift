import BeaconDashboard

/// Clears a status message once it has been up for a while (5 seconds).
struct MessageTimer {
    private var shown: (message: StatusMessage, at: ContinuousClock.Instant)?
    private static let lifetime = Duration.seconds(5)

    /// Notes when `message` first appeared, and clears it when its time is up.
    mutating func expire(_ message: inout StatusMessage?, now: ContinuousClock.Instant) {
        guard let current = message else {
            shown = nil
            return
        }
        if shown?.message != current {
            shown = (current, now)
        } else if let shown, now - shown.at > Self.lifetime {
            message = nil
            self.shown = nil
        }
    }
}

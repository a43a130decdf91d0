import Beacon
import BeaconDashboard

/// Reads what an open operator-log view shows, at once when it opens and then every two
/// seconds (one indexed read of the newest rows). A failed read leaves the last list on
/// screen and says why.
struct OperatorLogRefresher {
    private var lastAt: ContinuousClock.Instant?
    private static let interval = Duration.seconds(2)

    mutating func refresh(_ state: inout DashboardState, from source: (any OperatorActionReading)?, now: ContinuousClock.Instant) async {
        guard state.view == .operatorLog else {
            lastAt = nil
            return
        }
        guard let source else {
            state.operatorLog.isUnavailable = true
            return
        }
        if let lastAt, now - lastAt < Self.interval { return }
        lastAt = now
        do {
            state.operatorLog.actions = try await source.operatorActions(limit: OperatorLogView.pageLimit)
            state.operatorLog.readError = nil
        } catch {
            state.operatorLog.readError = "\(error)"
        }
    }
}

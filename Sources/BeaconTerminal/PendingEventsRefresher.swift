import Beacon
import BeaconDashboard

/// Reads what an open pending-events view shows: the queue's head and tail for the
/// selected destination, at once when the view opens or the destination changes, else
/// every second (a read of each end by its key: the drain does not notice). A failed
/// read leaves the last page on screen and says why.
struct PendingEventsRefresher {
    private var last: (query: PendingEventQuery, at: ContinuousClock.Instant)?
    private static let interval = Duration.seconds(1)

    mutating func refresh(_ state: inout DashboardState, from source: (any PendingEventReading)?, now: ContinuousClock.Instant) async {
        guard state.view == .pendingEvents else {
            last = nil
            return
        }
        guard let source else {
            state.pendingEvents.isUnavailable = true
            return
        }
        let query = state.pendingEventsQuery
        if let last, last.query == query, now - last.at < Self.interval { return }
        last = (query, now)
        do {
            state.pendingEvents.receive(try await source.pendingEvents(query), destination: query.destination)
        } catch {
            state.pendingEvents.readError = "\(error)"
        }
    }
}

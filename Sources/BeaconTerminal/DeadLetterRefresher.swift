import Beacon
import BeaconDashboard

/// Reads what an open dead-letter view shows: the letters its search finds (and the open
/// letter whole), at once when the search or the letter changed, else every half second.
/// A failed read leaves the last one on screen and says so.
struct DeadLetterRefresher {
    private var last: (query: DeadLetterQuery, detail: Int64?, at: ContinuousClock.Instant)?
    private static let interval = Duration.milliseconds(500)

    mutating func refresh(_ state: inout DashboardState, from source: any DeadLetterReading, now: ContinuousClock.Instant) async {
        guard state.view == .deadLetters else {
            last = nil
            return
        }
        let query = state.workbench.query
        let detail = state.workbench.detail?.id
        if let last, last.query == query, last.detail == detail, now - last.at < Self.interval { return }
        last = (query, detail, now)
        do {
            let page = try await source.deadLetters(matching: query, limit: DeadLetterWorkbench.pageLimit)
            var read: (id: Int64, letter: DeadLetter?)?
            if let detail { read = (detail, try await source.deadLetter(id: detail)) }
            state.receive(DeadLetterWorkbench.Results(query: query, page: page), detail: read)
        } catch {
            state.message = StatusMessage("could not read the dead letters: \(error)", severity: .error)
        }
    }
}

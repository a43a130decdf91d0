import Beacon

/// The pending-events view's memory (`e`): the last page read of the queue's head and
/// tail, the event under the cursor, and why the last read failed, if it did.
public struct PendingEventsView: Sendable, Hashable {
    /// Events read from each end of the queue per refresh.
    public static let pageLimit = 10

    /// The last page read; `nil` before the first read.
    public var page: PendingEventsPage?
    /// The destination the page was read for (`nil`: any).
    public var pageDestination: String?
    /// The listed event under the cursor (an index into `page.events`).
    public var cursor: Int = 0
    /// Why the last read failed (the page shown is the one before), if it did.
    public var readError: String?
    /// Set when the view cannot read a store (an engine without one): it says so.
    public var isUnavailable = false

    public init() {}

    /// The listed event under the cursor, if any.
    public var selected: PendingEventRecord? {
        guard let events = page?.events, events.indices.contains(cursor) else { return nil }
        return events[cursor]
    }

    /// Takes a page read for `destination`; the cursor stays on the same event when it is
    /// still listed, else on the same row.
    public mutating func receive(_ page: PendingEventsPage, destination: String?) {
        let was = selected?.sequence
        self.page = page
        pageDestination = destination
        readError = nil
        if let was, let index = page.events.firstIndex(where: { $0.sequence == was }) {
            cursor = index
        } else {
            cursor = min(cursor, max(0, page.events.count - 1))
        }
    }
}

extension DashboardState {
    /// The destination the pending view lists events for: the selected one when there are
    /// several, else every destination's queue (`nil`).
    public var pendingEventsDestination: String? {
        destinationNames.count > 1 ? selectedDestinationName : nil
    }

    /// The query the pending view reads with.
    public var pendingEventsQuery: PendingEventQuery {
        PendingEventQuery(destination: pendingEventsDestination, limit: PendingEventsView.pageLimit)
    }
}

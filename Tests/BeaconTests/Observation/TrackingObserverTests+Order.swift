@testable import Beacon
import BeaconTesting
import Testing

/// Depths reach the observer from the threads that changed the queue, so a commit's can
/// come after the settle of the batch it woke; the older one must not win.
extension TrackingObserverTests {
    static func depth(
        events: Int, accepted: Int = 0, committed: Int, delivered: Int = 0, destination: DestinationDepth? = nil
    ) -> QueueDepth {
        QueueDepth(
            events: events, totals: QueueTotals(accepted: accepted, committed: committed, delivered: delivered),
            destinations: destination.map { ["collector": $0] } ?? [:])
    }

    static let settlement = BatchSettlement(
        record: BatchRecord(
            id: 1, destination: "collector", startedAt: .now(), duration: .zero, events: 10, bytes: 0, attempt: 1,
            status: 200, outcome: .sent, error: nil))

    /// The late commit's count accepted may be higher than the settle's: it is read apart
    /// from the store's counters, so the higher one stands.
    @Test(arguments: [10, 12])
    func aCommitsDepthArrivingAfterTheSettleItCausedIsNotApplied(lateAccepted: Int) async {
        let observer = Self.observer()
        observer.report(.queue(.settled(Self.settlement, depth: Self.depth(events: 0, accepted: 10, committed: 10, delivered: 10))))
        observer.report(.queue(.committed(count: 10, depth: Self.depth(events: 10, accepted: lateAccepted, committed: 10))))
        let snapshot = await observer.snapshot
        #expect(snapshot.depth == 0)
        #expect(snapshot.totals.delivered == 10)
        #expect(snapshot.totals.accepted == lateAccepted)
    }

    @Test func aNewerDepthAndAnUnorderedOneAreApplied() async {
        let observer = Self.observer()
        observer.report(.queue(.committed(count: 5, depth: Self.depth(events: 5, committed: 5))))
        observer.report(.queue(.committed(count: 5, depth: Self.depth(events: 10, committed: 10))))
        #expect(await observer.snapshot.depth == 10)
        // Each leads on one counter: nothing says which is older, so the last one stands.
        observer.report(.queue(.settled(Self.settlement, depth: Self.depth(events: 3, committed: 8, delivered: 5))))
        #expect(await observer.snapshot.depth == 3)
    }

    @Test(arguments: [
        // (older, later, overtaken)
        (depth(events: 1, committed: 1), depth(events: 1, committed: 1), false),
        (depth(events: 1, committed: 1), depth(events: 0, committed: 1, delivered: 1), true),
        (depth(events: 0, committed: 1, delivered: 1), depth(events: 1, committed: 1), false),
        (depth(events: 1, committed: 2, delivered: 1), depth(events: 1, committed: 1, delivered: 0), false),
        (depth(events: 2, committed: 2, delivered: 0), depth(events: 2, committed: 3, delivered: 1), true),
        (
            depth(events: 1, committed: 1, destination: DestinationDepth(pending: 1)),
            depth(events: 1, committed: 1, destination: DestinationDepth(pending: 0, filtered: 1)), true
        ),
        (
            depth(events: 1, committed: 1, destination: DestinationDepth(pending: 0, filtered: 1)),
            depth(events: 1, committed: 2, destination: DestinationDepth(pending: 1)), false
        ),
        (depth(events: 1, committed: 1, destination: DestinationDepth(pending: 1)), depth(events: 1, committed: 2), false),
    ])
    func depthsAreOrderedByTheirCounters(older: QueueDepth, later: QueueDepth, overtaken: Bool) {
        #expect(older.isOvertaken(by: later) == overtaken)
    }
}

import Beacon
import BeaconTesting
import BeaconWire
import Testing

@Suite("Tracking observer", .timeLimit(.minutes(1)))
struct TrackingObserverTests {
    static func record(_ id: Int) -> BatchRecord {
        BatchRecord(
            id: Int64(id), destination: "default", startedAt: Timestamp(millisecondsSince1970: 0), duration: .milliseconds(1),
            events: 1, bytes: 10, attempt: 1, status: 200, outcome: .sent, error: nil)
    }

    @Test func reportsFromConcurrentSendersAreAllAppliedInOrderAndSnapshotsNeverGoBack() async throws {
        let ticks = ManualClock()  // never advanced: snapshots come from reports only
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(), storePath: "store", endpoint: "test",
            sleep: { try await ticks.sleep(for: $0) })
        let snapshots = await observer.snapshots()
        let observing = Task { await observer.run() }
        defer { observing.cancel() }

        let (producers, perProducer) = (4, 500)
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for index in 0..<perProducer {
                        observer.report(.batchFinished(Self.record(producer * perProducer + index), delivered: 1, deadLettered: 0))
                    }
                }
            }
        }
        var last = 0
        for await snapshot in snapshots {
            #expect(snapshot.totals.batchesSent >= last, "a snapshot never goes back")
            last = snapshot.totals.batchesSent
            if last == producers * perProducer { break }
        }
        #expect(last == producers * perProducer)

        // Newest first: each producer's records appear in the reverse of the order it reported them.
        let recent = await observer.snapshot.recentBatches
        #expect(recent.count == 200)
        for producer in 0..<producers {
            let ids = recent.map(\.id).filter { Int($0) / perProducer == producer }
            #expect(ids == ids.sorted(by: >), "producer \(producer)'s reports were applied in order")
        }
    }
}

import Beacon
import BeaconTesting
import BeaconWire
import Synchronization
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

    /// A destination that delivers while another is down: its own rate shows it, though
    /// the queue's `rateOut` (events delivered to every destination) stays 0.
    @Test func eachDestinationHasItsOwnDeliveryRate() async throws {
        let depth = Mutex(QueueDepth(events: 1_000, destinations: ["main": DestinationDepth(pending: 1_000), "backup": DestinationDepth(pending: 1_000)]))
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: depth.withLock { $0 }, storePath: "store", endpoint: "test",
            depthProvider: { depth.withLock { $0 } }, sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        for name in ["main", "backup"] {
            await observer.apply(.destination(DestinationStatus(name: name, endpoint: "e", depth: 1_000, state: .idle)))
        }
        await observer.tick()
        #expect(await observer.snapshot.destinations.allSatisfy { $0.deliveryRate == nil }, "one sample: no rate yet")
        depth.withLock { $0.destinations["backup"] = DestinationDepth(pending: 500, delivered: 500) }
        await observer.tick()
        var snapshot = await observer.snapshot
        #expect(snapshot.destinations.first { $0.name == "backup" }?.deliveryRate == 500)
        #expect(snapshot.destinations.first { $0.name == "main" }?.deliveryRate == 0)
        #expect(snapshot.rateOut == 0, "nothing left the queue: main has every event still")
        // A report of the destination keeps the rate until the next tick.
        await observer.apply(.destination(DestinationStatus(name: "backup", endpoint: "e", depth: 500, state: .sending)))
        snapshot = await observer.snapshot
        #expect(snapshot.destinations.first { $0.name == "backup" }?.deliveryRate == 500)
    }

    /// A destination reads as its batcher reports it: sending through a drain, idle once
    /// the drain ended, even with events left and a batch delivered just now (they wait
    /// for the policy), and idle stays idle as time passes.
    @Test func aDestinationReadsAsItsBatcherReportsIt() async throws {
        let wall = Mutex(Timestamp(millisecondsSince1970: 1_000_000))
        let depth = Mutex(QueueDepth(events: 480_000, destinations: ["main": DestinationDepth(pending: 480_000)]))
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: depth.withLock { $0 }, storePath: "store", endpoint: "test",
            depthProvider: { depth.withLock { $0 } }, sleep: { _ in try await Task.sleep(for: .seconds(3600)) },
            wallClock: { wall.withLock { $0 } })
        await observer.apply(.destination(DestinationStatus(name: "main", endpoint: "e", depth: 480_000, state: .idle)))
        #expect(await observer.snapshot.destinations.first?.state == .idle, "nothing delivered yet: idle, waiting for its policy")
        var record = Self.record(1)
        record.destination = "main"
        await observer.apply(.batchFinished(record, delivered: 500, deadLettered: 0))
        await observer.apply(.destination(DestinationStatus(name: "main", endpoint: "e", depth: 479_500, state: .sending)))
        #expect(await observer.snapshot.destinations.first?.state == .sending, "between two batches of a drain")
        await observer.apply(.destination(DestinationStatus(name: "main", endpoint: "e", depth: 479_500, state: .idle)))
        #expect(await observer.snapshot.destinations.first?.state == .idle, "the drain ended: events left wait for the policy")
        wall.withLock { $0 = Timestamp(millisecondsSince1970: 1_000_500) }
        await observer.tick()
        #expect(await observer.snapshot.destinations.first?.state == .idle)
    }

    /// Every answered request counts, with its bytes, whatever the outcome; a batch the
    /// enrichment filtered out whole made no request.
    @Test func requestsAndBytesSentCountEveryAnswer() async throws {
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        for (index, (outcome, bytes)) in [
            (BatchOutcome.sent, 100), (.retry, 40), (.split, 7), (.deadLettered, 3), (.paused, 2), (.filtered, 1_000),
            (.sent, -5),
        ].enumerated() {
            var record = Self.record(index)
            record.outcome = outcome
            record.bytes = bytes
            await observer.apply(.batchFinished(record, delivered: 0, deadLettered: 0))
        }
        let totals = await observer.snapshot.totals
        #expect(totals.requests == 6)
        #expect(totals.bytesSent == 152, "a negative size counts as none; the filtered batch sent nothing")
        #expect(totals.batchesSent == 2)
        #expect(totals.retried == 1 && totals.split == 1)
    }
}

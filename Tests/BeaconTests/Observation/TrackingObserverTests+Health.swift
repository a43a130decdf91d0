import BeaconTesting
import BeaconWire
import Synchronization
import Testing

@testable import Beacon

/// Issue 42, findings 4 and 5: since when a destination fails, how many of its requests
/// fail, and whether its backlog goes down, derived once by the observer.
extension TrackingObserverTests {
    static func record(_ id: Int, _ outcome: BatchOutcome, destination: String = "main") -> BatchRecord {
        BatchRecord(
            id: Int64(id), destination: destination, startedAt: Timestamp(millisecondsSince1970: 0), duration: .milliseconds(1),
            events: 10, bytes: 100, attempt: 1, status: outcome == .retry ? 500 : 200, outcome: outcome,
            error: outcome == .retry ? "HTTP 500" : nil)
    }

    @Test func failingSinceIsTheFirstFailureAfterTheLastDelivery() async throws {
        let wall = Mutex(Timestamp(millisecondsSince1970: 1_000_000))
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(events: 10), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) }, wallClock: { wall.withLock { $0 } })
        await observer.apply(.destination(DestinationStatus(name: "main", endpoint: "e", depth: 10, state: .sending)))
        await observer.apply(.batchFinished(Self.record(1, .sent), delivered: 10, deadLettered: 0))
        #expect(await observer.snapshot.destinations[0].failingSince == nil)
        wall.withLock { $0 = Timestamp(millisecondsSince1970: 1_005_000) }
        await observer.apply(.batchFinished(Self.record(2, .retry), delivered: 0, deadLettered: 0))
        wall.withLock { $0 = Timestamp(millisecondsSince1970: 1_009_000) }
        await observer.apply(.batchFinished(Self.record(3, .retry), delivered: 0, deadLettered: 0))
        // The batcher's own report of the destination (each failure) keeps it.
        await observer.apply(.destination(DestinationStatus(name: "main", endpoint: "e", depth: 10, state: .sending, consecutiveFailures: 2)))
        var main = await observer.snapshot.destinations[0]
        #expect(main.failingSince == Timestamp(millisecondsSince1970: 1_005_000), "the first of the two failures")
        #expect(main.failureRate == 2.0 / 3.0)
        await observer.apply(.batchFinished(Self.record(4, .sent), delivered: 10, deadLettered: 0))
        main = await observer.snapshot.destinations[0]
        #expect(main.failingSince == nil, "a delivery ends it")
        #expect(main.failureRate == 0.5)
    }

    @Test func theFailureRateCountsTheLastTwentyRequestsOfEachDestination() async throws {
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(events: 10), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        for name in ["main", "backup"] {
            await observer.apply(.destination(DestinationStatus(name: name, endpoint: "e", depth: 10, state: .sending)))
        }
        #expect(await observer.snapshot.destinations.allSatisfy { $0.failureRate == nil }, "no request yet: not known")
        // 30 failed, then 14 delivered and 6 failed: the last 20 hold 6 failures.
        var id = 0
        for outcome in Array(repeating: BatchOutcome.retry, count: 30) + Array(repeating: .sent, count: 14)
            + Array(repeating: .retry, count: 6) {
            id += 1
            await observer.apply(.batchFinished(Self.record(id, outcome, destination: "backup"), delivered: 0, deadLettered: 0))
        }
        // A filtered batch sent nothing: not a request.
        await observer.apply(.batchFinished(Self.record(id + 1, .filtered, destination: "backup"), delivered: 0, deadLettered: 0))
        let snapshot = await observer.snapshot
        #expect(snapshot.destinations.first { $0.name == "backup" }?.failureRate == 0.3)
        #expect(snapshot.destinations.first { $0.name == "main" }?.failureRate == nil, "main sent nothing")
    }

    @Test func aBacklogThatDoesNotShrinkIsNotDraining() {
        var status = DestinationStatus(name: "main", endpoint: "e", depth: 1_200, state: .sending)
        #expect(status.drain == .unknown, "no rates yet")
        status.deliveryRate = 20
        status.inflowRate = 20
        #expect(status.drain == .notDraining, "as fast in as out: pending ÷ out would promise a minute")
        #expect(status.drainSeconds == nil)
        status.inflowRate = 8
        #expect(status.drain == .seconds(100), "1,200 at a net 12/s")
        status.inflowRate = nil
        #expect(status.drain == .seconds(60), "no inflow known: the delivery rate alone")
        for (out, inflow) in [(Double.nan, 1.0), (.infinity, 1), (-5, 1), (20, .nan), (20, -3), (20, .infinity), (1e-300, 0)] {
            status.deliveryRate = out
            status.inflowRate = inflow
            switch status.drain {
            case .seconds(let seconds): #expect(seconds.isFinite && seconds > 0, "\(out) \(inflow)")
            case .unknown, .notDraining: break
            }
        }
        status.deliveryRate = 20
        status.inflowRate = 0
        status.state = .backingOff(until: Timestamp(millisecondsSince1970: 0))
        #expect(status.drain == .unknown, "a backoff delivers nothing and says so itself")
    }
}

import BeaconTesting
import BeaconWire
import Foundation
import Synchronization
import Testing

@testable import Beacon

/// Issue 42, build 9: the disk under the store, and how soon it or the queue's bound is
/// reached at the current inflow.
@Suite("The disk under the store")
struct StoreDiskTests {
    @Test func aStoreOnDiskIsMeasured() async throws {
        let store = try TemporaryStore("disk")
        let queue = try SQLiteEventQueue(path: store.path)
        for index in 0..<500 { _ = queue.append(PendingEvent(messageId: "m-\(index)", name: "e", payload: Array(repeating: 120, count: 300), createdAt: .now())) }
        await queue.waitForPendingWrites()
        let disk = try #require(StoreDisk.read(storePath: store.path))
        let database = try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int ?? -1
        #expect(disk.storeBytes >= database && database > 0, "the database and its log: \(disk.storeBytes) of \(database)")
        #expect(disk.freeBytes > 0 && disk.freeBytes <= disk.totalBytes)
        withExtendedLifetime(queue) {}
    }

    @Test("paths that are not a store read as unknown or as nothing stored", arguments: [
        "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/queue.sqlite", "relative-queue.sqlite", "/", "",
    ])
    func oddPaths(_ path: String) {
        guard let disk = StoreDisk.read(storePath: path) else { return }  // no filesystem to read: unknown
        #expect(disk.freeBytes <= disk.totalBytes)
        #expect(disk.storeBytes >= 0)
    }

    @Test func theFillingIsEstimatedFromTheNetInflow() {
        let disk = StoreDisk(storeBytes: 1_000_000, freeBytes: 36_000_000, totalBytes: 1_000_000_000)
        #expect(disk.secondsUntilFull(growingBy: 10_000) == 3_600)
        for rate in [0, -5, .nan, .infinity] as [Double] { #expect(disk.secondsUntilFull(growingBy: rate) == nil, "\(rate)") }
        #expect((disk.secondsUntilFull(growingBy: 1e-300) ?? 0) > 1e300, "finite, however far: the surfaces cap what they show")
        #expect(StoreDisk(storeBytes: -1, freeBytes: -1, totalBytes: -1) == StoreDisk(storeBytes: 0, freeBytes: 0, totalBytes: 0))
    }

    @Test func theObserverSaysHowSoonTheDiskAndTheBoundAreReached() async {
        let disk = Mutex(StoreDisk(storeBytes: 1_000, freeBytes: 360_000_000, totalBytes: 1_000_000_000))
        let depth = Mutex(QueueDepth(events: 1_000, bytes: 100_000))
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: depth.withLock { $0 }, storePath: "store", endpoint: "test",
            depthProvider: { depth.withLock { $0 } }, sleep: { _ in try await Task.sleep(for: .seconds(3600)) },
            queueBounds: QueueBounds(maxEvents: 101_000, maxBytes: .max), diskProvider: { disk.withLock { $0 } })
        await observer.tick()
        var snapshot = await observer.snapshot
        #expect(snapshot.disk?.freeBytes == 360_000_000)
        #expect(snapshot.diskFullInSeconds == nil && snapshot.boundInSeconds == nil, "no inflow yet")
        #expect(!snapshot.isDiskLow)
        // 1,000 events a second arrive, none leave; 100 bytes an event.
        depth.withLock { $0 = QueueDepth(events: 2_000, bytes: 200_000, totals: QueueTotals(accepted: 1_000)) }
        await observer.tick()
        snapshot = await observer.snapshot
        #expect(snapshot.boundInSeconds == 99, "99,000 events of room at 1,000/s")
        #expect(snapshot.diskFullInSeconds == 3_600, "360 MB at 100 KB/s")
        #expect(!snapshot.isDiskLow, "an hour ahead: not yet")
        disk.withLock { $0.freeBytes = 36_000_000 }
        await observer.tick()
        snapshot = await observer.snapshot
        #expect(snapshot.isDiskLow, "full within the hour (and under 5 % free)")
    }
}

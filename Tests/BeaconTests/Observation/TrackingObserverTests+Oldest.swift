import Beacon
import BeaconTesting
import BeaconWire
import Synchronization
import Testing

/// The ages an operator reads: the oldest pending event and the last delivery, measured
/// from the snapshot's time. Before, the snapshot's time moved only with the observer's
/// tick (each second), and the oldest pending events were read only then: for up to a
/// second after a delivery the console read "ok 0.0 ms ago" (a delivery after the
/// snapshot's time) and "oldest 4.91 s" for an event already delivered. The observers
/// here never tick, so only the fixes can make these tests pass.
extension TrackingObserverTests {
    /// What the store answers for the oldest pending events, and how often it was asked.
    final class OldestStore: Sendable {
        let answer = Mutex<[String: Timestamp]?>([:])
        let reads = Atomic<Int>(0)

        func read() -> [String: Timestamp]? {
            reads.add(1, ordering: .relaxed)
            return answer.withLock { $0 }
        }
    }

    /// A wall clock the test sets.
    final class SetClock: Sendable {
        let now = Mutex(Timestamp(millisecondsSince1970: 1_800_000_000_000))
        func advance(milliseconds: Int64) { now.withLock { $0 = Timestamp(millisecondsSince1970: $0.millisecondsSince1970 + milliseconds) } }
        func read() -> Timestamp { now.withLock { $0 } }
    }

    static func oldestObserver(_ store: OldestStore, _ clock: SetClock) -> TrackingObserver {
        TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) },  // no tick
            oldestPendingProvider: { store.read() }, wallClock: { clock.read() })
    }

    static func depth(pending: Int, delivered: Int) -> QueueDepth {
        QueueDepth(
            events: pending, totals: QueueTotals(committed: pending + delivered, delivered: delivered),
            destinations: ["default": DestinationDepth(pending: pending, delivered: delivered)])
    }

    static func oldest(_ snapshot: EngineSnapshot) -> Timestamp? { snapshot.destinations.first?.oldestPendingAt }

    @Test func aDeliveryIsFollowedByTheNewOldestEventAndItsTime() async {
        let (store, clock) = (OldestStore(), SetClock())
        let first = Timestamp(millisecondsSince1970: 1_799_999_990_000)  // 10 s before the clock
        let second = Timestamp(millisecondsSince1970: 1_799_999_999_000)
        store.answer.withLock { $0 = ["default": first] }
        let observer = Self.oldestObserver(store, clock)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await observer.run() }
            observer.report(.destination(DestinationStatus(name: "default", endpoint: "test", depth: 0, state: .idle)))
            observer.report(.queue(.committed(count: 3, depth: Self.depth(pending: 3, delivered: 0))))
            let read = await observer.firstSnapshot(within: .seconds(10)) { Self.oldest($0) == first }
            #expect(read != nil, "events arrived: their oldest is read without a tick")
            #expect(read.flatMap { $0.destinations.first?.oldestPendingAge(at: $0.time) } == 10_000)

            // The first event is delivered a second later; the store's oldest is now the second.
            clock.advance(milliseconds: 1_000)
            store.answer.withLock { $0 = ["default": second] }
            observer.report(.batchFinished(Self.record(1), delivered: 1, deadLettered: 0))
            observer.report(.queue(.settled(
                BatchSettlement(record: Self.record(1), delivered: [1], through: 1), depth: Self.depth(pending: 2, delivered: 1))))
            let after = await observer.firstSnapshot(within: .seconds(10)) { Self.oldest($0) == second }
            #expect(after != nil, "the delivered event is no longer the oldest")
            if let after, let success = after.destinations.first?.lastSuccessAt {
                #expect(after.time.millisecondsSince1970 >= success.millisecondsSince1970, "the snapshot is not older than what it shows")
                #expect(after.destinations.first?.oldestPendingAge(at: after.time) == 2_000)
            } else {
                Issue.record("no delivery shown: \(String(describing: after))")
            }

            // Nothing left: known at once, nothing read.
            let reads = store.reads.load(ordering: .relaxed)
            observer.report(.queue(.settled(
                BatchSettlement(record: Self.record(2), delivered: [2, 3], through: 3), depth: Self.depth(pending: 0, delivered: 3))))
            let empty = await observer.firstSnapshot(within: .seconds(10)) { $0.depth == 0 }
            #expect(empty.map(Self.oldest) == .some(nil))
            #expect(store.reads.load(ordering: .relaxed) == reads, "an empty destination needs no read")
            group.cancelAll()
        }
    }

    @Test func aDrainOfManyBatchesReadsTheOldestAtMostTenTimesASecond() async {
        let (store, clock) = (OldestStore(), SetClock())
        store.answer.withLock { $0 = ["default": Timestamp(millisecondsSince1970: 1_799_999_000_000)] }
        let observer = Self.oldestObserver(store, clock)
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await observer.run() }
            observer.report(.destination(DestinationStatus(name: "default", endpoint: "test", depth: 0, state: .idle)))
            observer.report(.queue(.committed(count: 1_000, depth: Self.depth(pending: 1_000, delivered: 0))))
            for batch in 1...500 {
                observer.report(.queue(.settled(
                    BatchSettlement(record: Self.record(batch), delivered: [Int64(batch)], through: Int64(batch)),
                    depth: Self.depth(pending: 1_000 - batch, delivered: batch))))
                if batch % 50 == 0 { await Task.yield() }
            }
            // The last settle is read after it: its oldest is the store's.
            store.answer.withLock { $0 = ["default": Timestamp(millisecondsSince1970: 1_799_999_500_000)] }
            observer.report(.queue(.settled(
                BatchSettlement(record: Self.record(501), delivered: [501], through: 501), depth: Self.depth(pending: 499, delivered: 501))))
            let last = await observer.firstSnapshot(within: .seconds(10)) {
                Self.oldest($0) == Timestamp(millisecondsSince1970: 1_799_999_500_000)
            }
            #expect(last != nil, "the change after the last settle is read")
            group.cancelAll()
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        let reads = store.reads.load(ordering: .relaxed)
        #expect(reads <= 2 + Int(seconds * 10) + 1, "\(reads) reads in \(seconds) s for 501 settles")
    }

    @Test func theLastErrorSaysWhenItHappened() async {
        let (store, clock) = (OldestStore(), SetClock())
        let observer = Self.oldestObserver(store, clock)
        let failedAt = clock.read()
        observer.report(.problem("cannot settle batch 7: disk I/O error"))
        clock.advance(milliseconds: 5_000)
        observer.report(.queue(.committed(count: 1, depth: Self.depth(pending: 1, delivered: 0))))
        let snapshot = await observer.snapshot
        #expect(snapshot.lastError == "cannot settle batch 7: disk I/O error")
        #expect(snapshot.lastErrorAt == failedAt, "the time of the error, not of the snapshot")
        #expect(snapshot.time.millisecondsSince1970 - failedAt.millisecondsSince1970 == 5_000)
    }

    /// A read of the oldest events that the store answers only when the test says so.
    final class HeldRead: Sendable {
        let entered: AsyncStream<Void>
        private let enteredContinuation: AsyncStream<Void>.Continuation
        private let release = Mutex<CheckedContinuation<[String: Timestamp], Never>?>(nil)
        let calls = Atomic<Int>(0)
        let first: [String: Timestamp]

        init(first: [String: Timestamp]) {
            self.first = first
            (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        }

        /// The first read answers `first` at once; the second waits for ``answer(_:)``.
        func read() async -> [String: Timestamp]? {
            guard calls.add(1, ordering: .relaxed).newValue > 1 else { return first }
            return await withCheckedContinuation { continuation in
                release.withLock { $0 = continuation }
                enteredContinuation.yield()
            }
        }

        func answer(_ value: [String: Timestamp]) {
            release.withLock { $0?.resume(returning: value); $0 = nil }
        }
    }

    /// A destination emptied while its oldest event was being read shows none, whatever
    /// the read found (it looked before the last events left).
    @Test func aDestinationEmptiedDuringTheReadShowsNoOldest() async {
        let clock = SetClock()
        let (a, b) = (Timestamp(millisecondsSince1970: 1_799_999_990_000), Timestamp(millisecondsSince1970: 1_799_999_991_000))
        let held = HeldRead(first: ["a": a, "b": a])
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) },
            oldestPendingProvider: { await held.read() }, wallClock: { clock.read() })
        func depth(a: Int, b: Int, delivered: Int) -> QueueDepth {
            QueueDepth(
                events: max(a, b), destinations: ["a": DestinationDepth(pending: a, delivered: delivered), "b": DestinationDepth(pending: b)])
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await observer.run() }
            for name in ["a", "b"] {
                observer.report(.destination(DestinationStatus(name: name, endpoint: "test", depth: 0, state: .idle)))
            }
            observer.report(.queue(.committed(count: 3, depth: depth(a: 3, b: 3, delivered: 0))))
            #expect(await observer.firstSnapshot(within: .seconds(10)) { $0.destinations.allSatisfy { $0.oldestPendingAt == a } } != nil)

            clock.advance(milliseconds: 1_000)
            observer.report(.queue(.settled(
                BatchSettlement(record: Self.record(1), delivered: [1], through: 1), depth: depth(a: 2, b: 3, delivered: 1))))
            var entered = held.entered.makeAsyncIterator()
            _ = await entered.next()  // the read after the first settle is under way
            observer.report(.queue(.settled(
                BatchSettlement(record: Self.record(2), delivered: [2, 3], through: 3), depth: depth(a: 0, b: 3, delivered: 3))))
            _ = await observer.snapshot  // the second settle applied
            held.answer(["a": a, "b": b])  // what the store held when the read looked
            let read = await observer.firstSnapshot(within: .seconds(10)) { $0.destinations.last?.oldestPendingAt == b }
            #expect(read != nil, "the read landed")
            #expect(read?.destinations.first?.oldestPendingAt == nil, "a is empty: \(String(describing: read?.destinations.first))")
            group.cancelAll()
        }
    }
}

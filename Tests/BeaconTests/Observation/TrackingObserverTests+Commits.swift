import Beacon
import BeaconTesting
import Testing

/// Commits with nobody subscribed do not wake the observer, yet nothing read from it is
/// ever behind them; with a subscriber each one is published.
extension TrackingObserverTests {
    static func observer() -> TrackingObserver {
        TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
    }

    /// Its run loop never started: only a read can apply the commits.
    @Test func aReadAppliesEveryCommitMadeBeforeIt() async {
        let observer = Self.observer()
        for depth in 1...5_000 { observer.report(.queue(.committed(count: 1, depth: QueueDepth(events: depth)))) }
        #expect(await observer.snapshot.depth == 5_000)
        #expect(await observer.snapshot.totals.accepted == 0, "the totals come from the depths reported (none here)")
        observer.report(.queue(.committed(count: 1, depth: QueueDepth(events: 7))))
        let subscribed = await observer.firstSnapshot { _ in true }
        #expect(subscribed?.depth == 7, "a subscription starts from every commit made before it")
    }

    /// With a subscriber, the run loop applies and publishes each commit.
    @Test func aSubscriberSeesCommitsAsTheyCome() async {
        let observer = Self.observer()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await observer.run() }
            let stream = await observer.snapshots()
            var seen: [Int] = []
            var iterator = stream.makeAsyncIterator()
            _ = await iterator.next()  // the current snapshot
            for depth in 1...3 {
                observer.report(.queue(.committed(count: 1, depth: QueueDepth(events: depth))))
                // Waits for the publication the commit brings: no read applies it here.
                while let snapshot = await iterator.next() {
                    if snapshot.depth == depth {
                        seen.append(depth)
                        break
                    }
                }
            }
            #expect(seen == [1, 2, 3])
            group.cancelAll()
        }
    }
}

@testable import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Synchronization
import Testing

/// Answers polls from a list the test controls, and records the `since` tokens.
final class FakeConfigFeed: Sendable {
    private let state = Mutex<(next: Result<String, FetchFailure>, sinces: [String?])>((.success("{}"), []))

    struct FetchFailure: Error {}

    func answer(_ text: String) { state.withLock { $0.next = .success(text) } }
    func fail() { state.withLock { $0.next = .failure(FetchFailure()) } }
    var sinces: [String?] { state.withLock { $0.sinces } }

    var fetch: @Sendable (String?) async throws -> [UInt8] {
        { since in
            let next = self.state.withLock { state in
                state.sinces.append(since)
                return state.next
            }
            return Array(try next.get().utf8)
        }
    }
}

@Suite("Remote config syncer", .timeLimit(.minutes(1)))
struct RemoteConfigSyncerTests {
    /// Removed, with the store's log and lock files, when the test ends.
    let store: TemporaryStore
    var path: String { store.path }

    init() throws {
        store = try TemporaryStore("rc")
    }

    let clock = ManualClock()
    let feed = FakeConfigFeed()
    let settings = SettingsStore()
    let filter = EventFilter()

    func makeSyncer() throws -> RemoteConfigSyncer<ManualClock> {
        RemoteConfigSyncer(
            importer: try SyncImporter(path: path), settings: settings, filter: filter, fetch: feed.fetch,
            interval: .seconds(30), clock: clock)
    }

    /// Waits (without sleeping) for a status that satisfies `condition`.
    func status(
        _ statuses: inout AsyncStream<RemoteConfigStatus>.Iterator, where condition: (RemoteConfigStatus) -> Bool
    ) async -> RemoteConfigStatus? {
        while let status = await statuses.next() {
            if condition(status) { return status }
        }
        return nil
    }

    @Test func changedBatchSizeArrivesAfterOnePollInterval() async throws {
        let syncer = try makeSyncer()
        var statuses = await syncer.statuses().makeAsyncIterator()
        feed.answer(#"{"settings": {"batchSize": 50, "flushAt": 100, "flushIntervalSeconds": 5}, "version_token": "v1"}"#)
        let run = Task { try await syncer.run() }
        _ = await status(&statuses) { $0.version == "v1" }
        #expect(settings.current.batchSize == 50)
        #expect(settings.current.policy == .any([.count(100), .interval(.seconds(5))]))

        await clock.waitForSleepers(1)
        feed.answer(#"{"settings": {"batchSize": 20}, "version_token": "v2"}"#)
        #expect(settings.current.batchSize == 50)
        clock.advance(by: .seconds(30))
        let applied = await status(&statuses) { $0.version == "v2" }
        #expect(applied?.lastError == nil)
        #expect(settings.current.batchSize == 20)
        #expect(settings.current.policy == .any([.count(100), .interval(.seconds(5))]))
        #expect(feed.sinces == [nil, "v1"])
        run.cancel()
        try await run.value
    }

    @Test func badResponseChangesNothingAndIsReported() async throws {
        let syncer = try makeSyncer()
        feed.answer(#"{"settings": {"batchSize": 50, "blocklist": ["Debug Event"]}, "version_token": "v1"}"#)
        #expect(await syncer.syncNow().version == "v1")
        for bad in [
            #"{"settings": {"batchSize": "fifty"}, "version_token": "v2"}"#,
            #"{"settings": {"sampling": {"Page Viewed": 2}}, "version_token": "v2"}"#,
            #"{"settings": {"batchSize": 10}}"#,
            #"{"settings": [], "version_token": "v2"}"#,
            "not json",
        ] {
            feed.answer(bad)
            let status = await syncer.syncNow()
            #expect(status.version == "v1", "\(bad)")
            #expect(status.lastError != nil, "\(bad)")
            #expect(settings.current.batchSize == 50)
            #expect(filter.rules.blocklist == ["Debug Event"])
            #expect(try SyncImporter(path: path).versionToken == "v1")
        }
        feed.fail()
        #expect(await syncer.syncNow().lastError?.contains("fetched") == true)
        feed.answer(#"{"settings": {}, "version_token": "v1"}"#)
        let recovered = await syncer.syncNow()
        #expect(recovered.lastError == nil)
        #expect(recovered.failures == 6)
    }

    @Test func deletedKeysReturnToTheEngineDefaults() async throws {
        let syncer = try makeSyncer()
        feed.answer(#"{"settings": {"batchSize": 7, "sampling": {"Page Viewed": 0.5}}, "version_token": "v1"}"#)
        await syncer.syncNow()
        #expect(settings.current.batchSize == 7)
        feed.answer(#"{"settings": {}, "deleted": ["batchSize", "sampling"], "version_token": "v2"}"#)
        await syncer.syncNow()
        #expect(settings.current.batchSize == EngineSettings().batchSize)
        #expect(filter.rules.sampling.isEmpty)
    }

    @Test func storedConfigurationIsAppliedOnRestart() async throws {
        feed.answer(#"{"settings": {"batchSize": 33}, "version_token": "v1"}"#)
        try await makeSyncer().syncNow()
        let restartedSettings = SettingsStore()
        let restarted = RemoteConfigSyncer(
            importer: try SyncImporter(path: path), settings: restartedSettings, filter: EventFilter(), fetch: feed.fetch,
            interval: .seconds(30), clock: clock)
        feed.fail()
        let run = Task { try await restarted.run() }
        await clock.waitForSleepers(1)
        #expect(restartedSettings.current.batchSize == 33)
        #expect(feed.sinces.last == "v1")
        run.cancel()
        try await run.value
    }

    @Test func trackerHookDropsBlockedAndSampledEventsAndCountsThem() async throws {
        let queue = InMemoryEventQueue()
        let tracker = Tracker(queue: queue, filter: filter)
        filter.setRules(EventFilter.Rules(blocklist: ["Debug Event"], sampling: ["Page Viewed": 0.5]))
        let blocked = try tracker.track("Debug Event")
        #expect(blocked.filtered == .blocked)
        try await blocked.committed()  // returns at once: nothing to wait for
        var kept = 0
        for _ in 0..<400 {
            if try tracker.track("Page Viewed").filtered == .keep { kept += 1 }
        }
        try tracker.track("Signed Up")
        await queue.waitForPendingWrites()
        #expect(queue.depth.events == kept + 1)
        #expect((120...280).contains(kept))
        #expect(filter.counts == EventFilter.Counts(blocked: 1, sampledOut: 400 - kept))
    }

    @Test func everyStatusChangeReachesTheObserversSnapshot() async throws {
        let ticks = ManualClock()  // never advanced: no ticks, only reports
        let observer = TrackingObserver(
            settings: settings.current, depth: QueueDepth(), storePath: path, endpoint: "test",
            sleep: { try await ticks.sleep(for: $0) })
        settings.onChange { observer.report(.settings($0)) }
        let observing = Task { await observer.run() }
        defer { observing.cancel() }
        let syncer = RemoteConfigSyncer(
            importer: try SyncImporter(path: path), settings: settings, filter: filter, fetch: feed.fetch,
            interval: .seconds(30), clock: clock, observer: observer)
        #expect(await observer.snapshot.remoteConfig == nil, "nothing before a syncer reports")

        feed.answer(#"{"settings": {"batchSize": 50}, "version_token": "v1"}"#)
        let run = Task { try await syncer.run() }
        let first = await observer.firstSnapshot { $0.remoteConfig?.version == "v1" }
        #expect(first?.batchSize == 50)
        #expect(first?.remoteConfig?.lastSync != nil)
        #expect(first?.remoteConfig?.interval == .seconds(30), "polling on an interval")
        #expect(first?.remoteConfig?.lastError == nil)

        await clock.waitForSleepers(1)
        feed.fail()
        clock.advance(by: .seconds(30))
        let failed = await observer.firstSnapshot { $0.remoteConfig?.lastError != nil }
        #expect(failed?.remoteConfig?.version == "v1")
        #expect(failed?.remoteConfig?.lastSync == first?.remoteConfig?.lastSync, "the last success stays the last sync")
        #expect(failed?.remoteConfig?.consecutiveFailures == 1)
        #expect(failed?.lastError?.hasPrefix("remote config: ") == true)
        #expect(failed?.batchSize == 50)

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        #expect(await observer.firstSnapshot { $0.remoteConfig?.consecutiveFailures == 2 } != nil)

        await clock.waitForSleepers(1)
        feed.answer(#"{"settings": {"batchSize": 20}, "version_token": "v2", "warning": "config file broken"}"#)
        clock.advance(by: .seconds(30))
        let recovered = await observer.firstSnapshot { $0.remoteConfig?.version == "v2" }
        #expect(recovered?.batchSize == 20)
        #expect(recovered?.remoteConfig?.lastError == nil)
        #expect(recovered?.remoteConfig?.consecutiveFailures == 0)
        #expect(recovered?.remoteConfig?.feedWarning == "config file broken")
        #expect(recovered?.lastError == "remote config feed: config file broken")
        run.cancel()
        try await run.value
    }

    @Test func aWarningInTheFeedIsKeptUntilAnAnswerWithoutOne() async throws {
        let syncer = try makeSyncer()
        feed.answer(#"{"settings": {"batchSize": 50}, "version_token": "v1", "warning": "broken file"}"#)
        let warned = await syncer.syncNow()
        #expect(warned.feedWarning == "broken file")
        #expect(warned.lastError == nil)
        #expect(settings.current.batchSize == 50, "the settings in the answer still apply")
        feed.answer(#"{"settings": {}, "version_token": "v1"}"#)
        #expect(await syncer.syncNow().feedWarning == nil)
        feed.answer(#"{"settings": {}, "version_token": "v1", "warning": 3}"#)
        #expect(await syncer.syncNow().lastError != nil, "a warning must be a string")
    }

    @Test func aLocalChangeLastsUntilTheServerChangesThatKey() async throws {
        let syncer = try makeSyncer()
        feed.answer(#"{"settings": {"batchSize": 50, "flushAt": 10}, "version_token": "v1"}"#)
        await syncer.syncNow()
        #expect(settings.current.batchSize == 50)
        settings.update { $0.batchSize = 200 }  // the dashboard's `+`
        feed.answer(#"{"settings": {}, "version_token": "v1"}"#)
        await syncer.syncNow()
        #expect(settings.current.batchSize == 200, "an unchanged config does not undo the local change")
        feed.answer(#"{"settings": {"flushAt": 20}, "version_token": "v2"}"#)
        await syncer.syncNow()
        #expect(settings.current.batchSize == 200, "a change of another key does not either")
        #expect(settings.current.policy == .any([.count(20)]))
        feed.answer(#"{"settings": {"batchSize": 60}, "version_token": "v3"}"#)
        await syncer.syncNow()
        #expect(settings.current.batchSize == 60, "the server's change of that key wins")
    }

    @Test func samplingIsDeterministicByMessageId() {
        let rules = EventFilter.Rules(sampling: ["Page Viewed": 0.5])
        let ids = (0..<100).map { "id-\($0)" }
        let first = ids.map { EventFilter.decision(name: "Page Viewed", messageId: $0, rules: rules) }
        let second = ids.map { EventFilter.decision(name: "Page Viewed", messageId: $0, rules: rules) }
        #expect(first == second)
        #expect(EventFilter.decision(name: "Other", messageId: "x", rules: rules) == .keep)
        #expect(EventFilter.decision(name: "Page Viewed", messageId: "x", rules: EventFilter.Rules(sampling: ["Page Viewed": 0])) == .sampledOut)
        #expect(EventFilter.decision(name: "Page Viewed", messageId: "x", rules: EventFilter.Rules(sampling: ["Page Viewed": 1])) == .keep)
    }
}

import Beacon
import BeaconCollector
import BeaconDashboard
import BeaconTesting
import Foundation
import Logging
import Testing

/// The collector serves a config file; an engine's ``RemoteConfigSyncer`` polls it on a
/// manual clock; the engine's snapshots and the dashboard render show what arrived.
/// Real HTTP on 127.0.0.1, a real SQLite store shared by the queue and the sync importer.
@Suite("Remote config end to end", .timeLimit(.minutes(1)))
struct RemoteConfigEndToEndTests {
    /// Removed, with the files the test left in it, when the test ends.
    let temporary: TemporaryStore
    var directory: String { temporary.directory }
    let clock = ManualClock()
    static let interval = Duration.seconds(5)

    init() throws {
        temporary = try TemporaryStore("e2e")
    }

    var file: String { directory + "/remote-config.json" }
    var store: String { directory + "/queue.sqlite" }

    /// Writes the config file and sets its modification time, so the collector sees each
    /// edit as a change even within the file system's timestamp resolution.
    func write(_ text: String, age: TimeInterval) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + age)], ofItemAtPath: file)
    }

    func collectorConfiguration() -> CollectorConfiguration {
        var configuration = CollectorConfiguration()
        configuration.configFeedPath = file
        return configuration
    }

    func feedURL(port: Int) throws -> URL {
        try #require(URL(string: "http://127.0.0.1:\(port)/v1/config"))
    }

    /// An engine sending to the collector (manual flushes only) and a syncer polling it
    /// every ``interval`` on the manual clock, over the same store.
    func makeEngineAndSyncer(port: Int) throws -> (BeaconEngine<ContinuousClock>, RemoteConfigSyncer<ManualClock>) {
        let engine = try DeliveryEndToEndTests.makeEngine(port: port, directory: directory, batchSize: 100, policy: .manual)
        var logger = Logger(label: "beacon.remote-config.test")
        logger.logLevel = .critical
        let syncer = RemoteConfigSyncer(
            importer: try SyncImporter(path: store), settings: engine.settings, filter: engine.filter,
            fetch: SyncHTTPFetcher(url: try feedURL(port: port)).fetchFunction, interval: Self.interval, clock: clock,
            observer: engine.observer, logger: logger)
        return (engine, syncer)
    }

    /// The version token the collector serves now, asked directly.
    func servedToken(port: Int) async throws -> String {
        let bytes = try await SyncHTTPFetcher(url: try feedURL(port: port)).fetch(since: nil)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        return try #require(object?["version_token"] as? String)
    }

    /// Lets one poll interval pass once the syncer waits for it.
    func nextPoll() async {
        await clock.waitForSleepers(1)
        clock.advance(by: Self.interval)
    }

    static func render(_ snapshot: EngineSnapshot) -> [String] {
        DashboardRenderer.render(snapshot: snapshot, state: DashboardState(mode: .demo), size: (width: 80, height: 24))
            .text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func batchSizeEditReachesTheRunningEngineWithinOnePollAndShowsOnTheDashboard() async throws {
        try write(#"{"settings": {"batchSize": 50}}"#, age: 0)
        try await withCollector(collectorConfiguration()) { _, port in
            let (engine, syncer) = try makeEngineAndSyncer(port: port)
            let firstToken = try await servedToken(port: port)
            try await DeliveryEndToEndTests.running(engine) {
                let syncing = Task { try await syncer.run() }
                defer { syncing.cancel() }
                let first = try #require(await engine.observer.firstSnapshot { $0.remoteConfig?.version == firstToken })
                #expect(first.batchSize == 50)
                #expect(first.remoteConfig?.lastSync != nil)
                #expect(first.remoteConfig?.lastError == nil)
                #expect(first.remoteConfig?.interval == Self.interval)

                await clock.waitForSleepers(1)
                try write(#"{"settings": {"batchSize": 20}}"#, age: 10)
                let secondToken = try await servedToken(port: port)
                #expect(secondToken != firstToken)
                #expect(engine.settings.current.batchSize == 50, "nothing changes before the next poll")
                clock.advance(by: Self.interval)

                let second = try #require(await engine.observer.firstSnapshot { $0.remoteConfig?.version == secondToken })
                #expect(second.batchSize == 20)
                #expect(engine.settings.current.batchSize == 20)
                #expect(second.remoteConfig?.lastError == nil)

                let screen = Self.render(second)
                #expect(screen[0].contains("batch 20"), "\(screen[0])")
                #expect(screen[3].contains("config \(secondToken)"), "\(screen[3])")
                #expect(screen[3].contains("synced "), "\(screen[3])")
                #expect(screen[3].contains("every 5s"), "\(screen[3])")

                // The batcher uses it: 45 events leave in batches of at most 20.
                for index in 0..<45 { try await engine.tracker.track("Config Test", properties: ["index": .int(index)]).committed() }
                await engine.flush()
                let delivered = try #require(await engine.observer.firstSnapshot { snapshot in
                    snapshot.recentBatches.filter { $0.outcome == .sent }.reduce(0) { $0 + $1.events } >= 45
                })
                #expect(delivered.recentBatches.map(\.events).sorted() == [5, 20, 20])
            }
        }
    }

    @Test func brokenOrInvalidConfigKeepsTheLastGoodSettingsAndTheDashboardSaysSo() async throws {
        try write(#"{"settings": {"batchSize": 50, "blocklist": ["Debug Event"]}}"#, age: 0)
        try await withCollector(collectorConfiguration()) { _, port in
            let (engine, syncer) = try makeEngineAndSyncer(port: port)
            let goodToken = try await servedToken(port: port)
            try await DeliveryEndToEndTests.running(engine) {
                let syncing = Task { try await syncer.run() }
                defer { syncing.cancel() }
                _ = try #require(await engine.observer.firstSnapshot { $0.remoteConfig?.version == goodToken })
                #expect(engine.filter.rules.blocklist == ["Debug Event"])

                // Not JSON: the collector keeps serving the last good version and says why.
                try write(#"{"settings": {"batchSize": "#, age: 10)
                await nextPoll()
                let broken = try #require(await engine.observer.firstSnapshot { $0.remoteConfig?.feedWarning != nil })
                #expect(broken.remoteConfig?.version == goodToken)
                #expect(broken.remoteConfig?.lastError == nil)
                #expect(broken.batchSize == 50)
                #expect(broken.lastError?.contains("not valid JSON") == true, "\(broken.lastError ?? "nil")")
                let brokenScreen = Self.render(broken)
                #expect(brokenScreen[3].contains("config \(goodToken)  feed warning"), "\(brokenScreen[3])")
                #expect(brokenScreen[0].contains("batch 50"), "\(brokenScreen[0])")

                // JSON, but a value engines would refuse: the collector refuses the file itself
                // (the same checks, from BeaconWire) and keeps serving the last good version.
                try write(#"{"settings": {"batchSize": 0, "blocklist": []}}"#, age: 20)
                await nextPoll()
                let refused = try #require(
                    await engine.observer.firstSnapshot { $0.remoteConfig?.feedWarning?.contains("batchSize") == true })
                #expect(refused.remoteConfig?.version == goodToken)
                #expect(refused.remoteConfig?.lastError == nil)
                #expect(refused.batchSize == 50)
                #expect(engine.settings.current.batchSize == 50)
                #expect(engine.filter.rules.blocklist == ["Debug Event"])
                let refusedScreen = Self.render(refused)
                #expect(refusedScreen[3].contains("config \(goodToken)  feed warning"), "\(refusedScreen[3])")

                // Fixed: the next poll applies it and the markers go.
                try write(#"{"settings": {"batchSize": 30}}"#, age: 30)
                let fixedToken = try await servedToken(port: port)
                await nextPoll()
                let fixed = try #require(await engine.observer.firstSnapshot { $0.remoteConfig?.version == fixedToken })
                #expect(fixed.batchSize == 30)
                #expect(fixed.remoteConfig?.lastError == nil)
                #expect(fixed.remoteConfig?.feedWarning == nil)
                #expect(engine.filter.rules.blocklist.isEmpty)
                let fixedScreen = Self.render(fixed)
                #expect(!fixedScreen[3].contains("failed") && !fixedScreen[3].contains("warning"), "\(fixedScreen[3])")
            }
        }
    }
}

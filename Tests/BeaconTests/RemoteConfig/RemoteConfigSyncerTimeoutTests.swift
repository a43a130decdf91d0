import Beacon
import BeaconTesting
import Foundation
import Testing

/// The remote-config syncer's fetch against a server that trickles its answer one byte a
/// second (issue 22, F10): the fetcher's timeout bounds the whole request, so a poll ends
/// with a timeout error within the timeout and a small margin and changes nothing.
@Suite("Remote config syncer: a trickling feed", .timeLimit(.minutes(1)))
struct RemoteConfigSyncerTimeoutTests {
    @Test func aTrickledFeedEndsThePollAtTheTimeout() async throws {
        let store = try TemporaryStore("rc")
        defer { withExtendedLifetime(store) {} }  // its files, removed with it, are used to the end
        let path = store.path
        let body = Array(#"{"settings": {"batchSize": 7}, "version_token": "slow"}"#.utf8)
        let server = try TricklingHTTPServer(head: TricklingHTTPServer.head(status: 200, length: body.count), body: body, pause: .seconds(1))
        defer { server.stop() }
        let settings = SettingsStore()
        let fetcher = SyncHTTPFetcher(url: try #require(URL(string: server.url + "/v1/config")), timeout: .seconds(2))
        let syncer = RemoteConfigSyncer(
            importer: try SyncImporter(path: path), settings: settings, filter: EventFilter(), fetch: fetcher.fetchFunction,
            interval: .seconds(30), clock: ManualClock())
        let batchSize = settings.current.batchSize

        let started = ContinuousClock.now
        let status = await syncer.syncNow()
        let elapsed = ContinuousClock.now - started

        #expect(elapsed < .seconds(2) + .seconds(3), "the poll ended at the 2 s timeout, not after the \(body.count) s trickle: \(elapsed)")
        #expect(status.lastError?.contains("timed out") == true, "\(status.lastError ?? "no error")")
        #expect(status.version == nil)
        #expect(settings.current.batchSize == batchSize, "nothing applied")
    }

    @Test func theFetcherAloneIsBoundedToo() async throws {
        let body = Array(String(repeating: " ", count: 30).utf8)
        let server = try TricklingHTTPServer(head: TricklingHTTPServer.head(status: 200, length: body.count), body: body, pause: .seconds(1))
        defer { server.stop() }
        let fetcher = SyncHTTPFetcher(url: try #require(URL(string: server.url + "/v1/config")), timeout: .seconds(1))
        let started = ContinuousClock.now
        await #expect(throws: SyncError.self) { try await fetcher.fetch(since: nil) }
        #expect(ContinuousClock.now - started < .seconds(1) + .seconds(3), "cut at the 1 s timeout, not after the 30 s trickle")
    }
}

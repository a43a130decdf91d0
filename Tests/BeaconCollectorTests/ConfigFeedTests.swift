import Beacon
import BeaconCollector
import BeaconTesting
import Foundation
import Testing

/// `GET /v1/config` on a real collector, from a config file in a temporary directory.
@Suite("Config feed", .timeLimit(.minutes(1)))
struct ConfigFeedTests {
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }

    init() throws {
        store = try TemporaryStore("config")
    }

    var file: String { directory + "/remote-config.json" }

    /// Writes the file and moves its modification time on, so the collector sees a change
    /// even within the file system's timestamp resolution.
    func write(_ text: String, age: TimeInterval) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + age)], ofItemAtPath: file)
    }

    func configuration() -> CollectorConfiguration {
        var configuration = CollectorConfiguration()
        configuration.configFeedPath = file
        return configuration
    }

    @Test func servesSettingsThenNoChangesThenDifferences() async throws {
        try write(#"{"settings": {"batchSize": 50, "blocklist": ["Debug Event"], "sampling": {"Page Viewed": 0.5}}}"#, age: 0)
        try await withCollector(configuration()) { _, port in
            try await withClient(port: port) { client in
                let first = try await call(client, .get, "/v1/config")
                #expect(first.status == 200)
                let settings = first.json["settings"] as? [String: Any]
                #expect(settings?["batchSize"] as? Int == 50)
                #expect(settings?["blocklist"] as? [String] == ["Debug Event"])
                #expect((first.json["deleted"] as? [String])?.contains("flushAt") == true)
                let token = try #require(first.json["version_token"] as? String)

                let same = try await call(client, .get, "/v1/config?since=\(token)")
                #expect((same.json["settings"] as? [String: Any])?.isEmpty == true)
                #expect((same.json["deleted"] as? [String]) == [])
                #expect(same.json["version_token"] as? String == token)

                try write(#"{"settings": {"batchSize": 20, "blocklist": ["Debug Event"]}}"#, age: 10)
                let changed = try await call(client, .get, "/v1/config?since=\(token)")
                let next = try #require(changed.json["version_token"] as? String)
                #expect(next != token)
                #expect((changed.json["settings"] as? [String: Any])?.keys.sorted() == ["batchSize"])
                #expect(changed.json["deleted"] as? [String] == ["sampling"])
            }
        }
    }

    @Test func brokenEditKeepsServingTheLastGoodVersion() async throws {
        try write(#"{"settings": {"batchSize": 50}}"#, age: 0)
        try await withCollector(configuration()) { _, port in
            try await withClient(port: port) { client in
                let token = try await call(client, .get, "/v1/config").json["version_token"] as? String
                #expect(try await call(client, .get, "/v1/config").json["warning"] == nil)
                try write(#"{"settings": {"batchSize": "#, age: 10)
                let answer = try await call(client, .get, "/v1/config")
                #expect(answer.status == 200)
                #expect(answer.json["version_token"] as? String == token)
                let warning = answer.json["warning"] as? String
                #expect(warning?.contains("not valid JSON") == true, "\(answer.text)")
                #expect(warning?.contains("last good version") == true, "\(answer.text)")
                let again = try await call(client, .get, "/v1/config?since=\(token ?? "")")
                #expect(again.json["warning"] as? String == warning, "still broken: still said")

                try write(#"{"settings": {"batchSize": 30}}"#, age: 20)
                let fixed = try await call(client, .get, "/v1/config?since=\(token ?? "")")
                #expect(fixed.json["warning"] == nil)
                #expect((fixed.json["settings"] as? [String: Any])?["batchSize"] as? Int == 30)
            }
        }
    }

    @Test func missingOrMalformedFileRefusesToStart() throws {
        #expect(throws: CollectorSetupError.self) { _ = try Collector(configuration: configuration()) }
        try write(#"{"batchSize": 50}"#, age: 0)
        #expect(throws: CollectorSetupError.self) { _ = try Collector(configuration: configuration()) }
    }

    @Test func withoutAFileTheRouteIsNotFound() async throws {
        try await withCollector { _, port in
            try await withClient(port: port) { client in
                let answer = try await call(client, .get, "/v1/config")
                #expect(answer.status == 404)
            }
        }
    }

    @Test func syncerAppliesTheServedConfiguration() async throws {
        try write(#"{"settings": {"batchSize": 42, "flushAt": 10, "blocklist": ["Debug Event"]}}"#, age: 0)
        try await withCollector(configuration()) { _, port in
            let importer = try SyncImporter(path: directory + "/engine.sqlite")
            let settings = SettingsStore()
            let filter = EventFilter()
            let fetcher = SyncHTTPFetcher(url: URL(string: "http://127.0.0.1:\(port)/v1/config")!)
            let syncer = RemoteConfigSyncer(
                importer: importer, settings: settings, filter: filter, fetch: fetcher.fetchFunction, interval: .seconds(60),
                clock: ManualClock())
            let status = await syncer.syncNow()
            #expect(status.lastError == nil)
            #expect(settings.current.batchSize == 42)
            #expect(settings.current.policy == .any([.count(10)]))
            #expect(filter.rules.blocklist == ["Debug Event"])
            let again = await syncer.syncNow()
            #expect(again.version == status.version)
            #expect(again.lastError == nil)
        }
    }
}

@testable import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// Numbers and names a hostile or careless config feed sends: every one is refused with a
/// named key before anything is stored, or taken within its range. None traps, and none
/// can plant a value that breaks a later start.
@Suite("Remote config hardening", .timeLimit(.minutes(1)))
struct RemoteConfigHardeningTests {
    /// Removed, with the store's log and lock files, when the test ends.
    let store: TemporaryStore
    var path: String { store.path }

    init() throws {
        store = try TemporaryStore("rch")
    }


    /// Extremes of every JSON type, as they appear in a feed.
    static let extremes: [String] = [
        "0", "-0", "-1", "-5", "1", "1.5", "0.0001", "1e300", "-1e300", "1e16", "9007199254740993", "9223372036854775807",
        "-9223372036854775808", "18446744073709551616", "1e-320", "604800", "604801", "100000", "100001", "true", "null",
        #""5""#, #""abc""#, #""""#, "[]", "[1]", "{}", #"{"a":1}"#, #"[[["x"]]]"#, #""\u0000""#,
    ]

    @Test("a stored config with 1e300 seconds cannot exist: the feed is refused, nothing stored")
    func hugeIntervalIsRefusedBeforeStoring() async throws {
        let importer = try SyncImporter(path: path)
        for value in ["1e300", "1e16", "604801", "-1", "0"] {
            let feed = #"{"settings": {"flushIntervalSeconds": \#(value)}, "version_token": "v-\#(value)"}"#
            await #expect(throws: SyncError.self) { try await importer.applyConfigFeed(Array(feed.utf8)) }
        }
        #expect(try importer.records(in: RemoteConfigFeed.collection).isEmpty)
        #expect(try importer.versionToken == nil)
    }

    @Test("every extreme in every key is refused by name or taken within range, never a trap", arguments: RemoteConfigKey.allCases)
    func extremesOfEveryKey(key: RemoteConfigKey) throws {
        for value in Self.extremes {
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"\#(key.rawValue)": \#(value)}"#.utf8))
            guard case .object(let settings) = json else { Issue.record("not an object: \(value)"); continue }
            do {
                let config = try RemoteConfig(settings: settings)
                // Taken: its policy and numbers are usable as they are.
                _ = config.policy
                if let size = config.batchSize { #expect((1...RemoteConfigKey.maximumBatchSize).contains(size)) }
                if let seconds = config.flushIntervalSeconds {
                    #expect(seconds > 0 && seconds <= Double(RemoteConfigKey.maximumFlushIntervalSeconds))
                    #expect(config.policy != nil)
                }
            } catch {
                guard case .wrongType(let path, _, _) = error else { Issue.record("\(key) \(value): \(error)"); continue }
                #expect(path.hasPrefix("settings.\(key.rawValue)"), "\(key) = \(value) refused under \(path)")
            }
        }
    }

    @Test("a seeded stream of mutated feeds: each is applied whole or refused whole")
    func mutatedFeeds() async throws {
        let importer = try SyncImporter(path: path)
        var random = SeededGenerator(seed: 0xBEAC0)
        var applied = 0
        var refused = 0
        for round in 0..<400 {
            var settings: [String] = []
            for key in RemoteConfigKey.allCases where Bool.random(using: &random) {
                let value: String
                switch key {
                case .blocklist: value = Int.random(in: 0..<4, using: &random) > 0 ? #"["A", "B"]"# : "[\(Self.extremes.randomElement(using: &random)!)]"
                case .sampling: value = Int.random(in: 0..<4, using: &random) > 0 ? #"{"A": 0.5}"# : #"{"A": \#(Self.extremes.randomElement(using: &random)!)}"#
                default:
                    let valid = ["batchSize": "50", "flushAt": "100", "flushIntervalSeconds": "2.5", "maxBatchBytes": "4096"]
                    let sane = valid[key.rawValue] ?? "1000"
                    value = Int.random(in: 0..<4, using: &random) > 0 ? sane : Self.extremes.randomElement(using: &random)!
                }
                settings.append(#""\#(key.rawValue)": \#(value)"#)
            }
            let feed = #"{"settings": {\#(settings.joined(separator: ","))}, "version_token": "r\#(round)"}"#
            let before = try importer.records(in: RemoteConfigFeed.collection)
            do {
                try await importer.applyConfigFeed(Array(feed.utf8))
                applied += 1
                #expect(try importer.versionToken == "r\(round)")
                // What was stored is what a later start reads back without refusing anything.
                let stored = RemoteConfigFeed.checkedSettings(from: try importer.records(in: RemoteConfigFeed.collection))
                #expect(stored.problems.isEmpty, "round \(round) stored \(stored.problems)")
                _ = try RemoteConfig(settings: stored.valid).policy
            } catch {
                refused += 1
                #expect(error.isBadInput, "round \(round): \(error)")
                #expect(try importer.records(in: RemoteConfigFeed.collection) == before, "round \(round) changed the store")
            }
        }
        #expect(applied > 20 && refused > 20, "applied \(applied), refused \(refused): the generator must reach both sides")
    }

    @Test("a blocklist of a million names is refused by its size, not applied name by name")
    func hugeBlocklistIsRefused() throws {
        let names = (0..<1_000_000).map { JSONValue.string("Event \($0)") }
        #expect(throws: SyncError.self) { try RemoteConfig(settings: ["blocklist": .array(names)]) }
        let most = (0..<RemoteConfigKey.maximumNames).map { JSONValue.string("Event \($0)") }
        #expect(try RemoteConfig(settings: ["blocklist": .array(most)]).blocklist.count == RemoteConfigKey.maximumNames)
        let longName = JSONValue.string(String(repeating: "n", count: RemoteConfigKey.maximumNameBytes + 1))
        #expect(throws: SyncError.self) { try RemoteConfig(settings: ["blocklist": [longName]]) }
    }

    @Test("a generic sync feed cannot write the remote_config collection")
    func genericFeedCannotWriteRemoteConfig() async throws {
        let importer = try SyncImporter(path: path)
        for feed in [
            #"{"remote_config": [{"id": "batchSize", "value": -5}], "version_token": "g1"}"#,
            #"{"deleted": {"remote_config": ["batchSize"]}, "version_token": "g2"}"#,
        ] {
            await #expect(throws: SyncError.reservedCollection("remote_config")) { try await importer.apply(Array(feed.utf8)) }
        }
        #expect(try importer.records(in: RemoteConfigFeed.collection).isEmpty)
    }

    @Test("a poisoned store (written before these checks) is started over without trapping, and a good feed still applies")
    func poisonedStoreIsHealed() async throws {
        let importer = try SyncImporter(path: path)
        // What older versions let through: a stored interval of 1e300 and a batch size of -5.
        let poisoned = #"{"remote_config": [{"id": "flushIntervalSeconds", "value": 1e300}, {"id": "batchSize", "value": -5}, "#
            + #"{"id": "flushAt", "value": 7}], "version_token": "old"}"#
        try await importer.apply(feed: try SyncFeed(json: Array(poisoned.utf8)))

        let settings = SettingsStore()
        let feed = FakeConfigFeed()
        feed.answer(#"{"settings": {"maxBatchBytes": 4096}, "version_token": "new"}"#)
        let syncer = RemoteConfigSyncer(
            importer: importer, settings: settings, filter: EventFilter(), fetch: feed.fetch, interval: .seconds(30),
            clock: ManualClock())
        let status = await syncer.syncNow()
        #expect(status.lastError == nil, "a good feed must not be refused for keys it never mentioned")
        #expect(status.version == "new")
        #expect(settings.current.maxBatchBytes == 4096)
        #expect(settings.current.policy == .any([.count(7)]))
        #expect(settings.current.batchSize == SettingsStore().current.batchSize)
    }

    @Test("ids that differ only after a NUL (or any control character) are refused, not merged")
    func controlCharactersInIdsAreRefused() async throws {
        let importer = try SyncImporter(path: path)
        for feed in [
            #"{"events": [{"id": "a\u0000b", "v": 1}, {"id": "a\u0000c", "v": 2}], "version_token": "n1"}"#,
            #"{"events": [{"id": "tab\there"}], "version_token": "n2"}"#,
            #"{"deleted": {"events": ["a\u0000b"]}, "version_token": "n3"}"#,
            #"{"ev\u0000ents": [{"id": "x"}], "version_token": "n4"}"#,
        ] {
            await #expect(throws: SyncError.self) { try await importer.apply(Array(feed.utf8)) }
        }
        #expect(try importer.collections().isEmpty)
    }
}

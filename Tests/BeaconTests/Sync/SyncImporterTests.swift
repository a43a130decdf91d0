@testable import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Testing

/// The importer on real SQLite files in a temporary directory.
@Suite("Sync importer", .timeLimit(.minutes(1)))
struct SyncImporterTests {
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }

    init() throws {
        store = try TemporaryStore("sync")
    }

    var path: String { directory + "/store.sqlite" }

    static func asset(_ name: String) throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return Array(try Data(contentsOf: root.appendingPathComponent("Assets/\(name)")))
    }

    func ids(_ importer: SyncImporter, _ collection: String) throws -> [String] {
        try importer.records(in: collection).map(\.id)
    }

    @Test func seedArticleFeedImportsAsWritten() throws {
        let importer = try SyncImporter(path: path)
        let result = try importer.apply(try Self.asset("sync-feed-seed.json"))
        #expect(result.upserted == ["events": 1, "locations": 2])
        #expect(result.deleted == ["events": 0, "locations": 0])
        #expect(result.versionToken == "1234567890")
        #expect(try importer.versionToken == "1234567890")
        let events = try importer.records(in: "events")
        #expect(events.map(\.id) == ["1"])
        #expect(events[0].body == ["id": 1, "title": "My Event", "location": 2])
        #expect(events[0].links == ["location": SyncLink(collection: "locations", id: "2")])
        let locations = try importer.records(in: "locations")
        #expect(locations.map(\.id) == ["2", "3"])
        #expect(locations[0].body == ["id": 2, "name": "Donny's House"])
        #expect(locations[1].body == ["id": 3, "name": "Melkweg, Amsterdam"])
    }

    @Test func updateReplacesAndDeletes() throws {
        let importer = try SyncImporter(path: path)
        try importer.apply(Array(#"{"events":[{"id":2,"title":"old"},{"id":8,"title":"gone"}],"locations":[{"id":4,"name":"x"}],"version_token":"0"}"#.utf8))
        try importer.apply(try Self.asset("sync-feed-seed.json"))
        #expect(try ids(importer, "events") == ["1"])
        #expect(try ids(importer, "locations") == ["2", "3"])
        let result = try importer.apply(try Self.asset("sync-feed-update.json"))
        #expect(result.upserted == ["events": 2, "locations": 2])
        #expect(try importer.versionToken == "1234567891")
        let events = try importer.records(in: "events")
        #expect(events.map(\.id) == ["1", "9"])
        #expect(events[0].body["title"] == "My Event (moved)")
        #expect(events[0].links["location"] == SyncLink(collection: "locations", id: "3"))
        let locations = try importer.records(in: "locations")
        #expect(locations.first { $0.id == "2" }?.body["name"] == "Donny's House, upstairs")
    }

    @Test func deletionCountsOnlyStoredRecordsAndUnlinks() throws {
        let importer = try SyncImporter(path: path)
        try importer.apply(try Self.asset("sync-feed-seed.json"))
        let result = try importer.apply(Array(#"{"deleted":{"locations":[2, 99]},"version_token":"t2"}"#.utf8))
        #expect(result.deleted == ["locations": 1])
        #expect(try ids(importer, "locations") == ["3"])
        #expect(try importer.records(in: "events")[0].links.isEmpty)
    }

    @Test func applyingTwiceIsHarmless() throws {
        let importer = try SyncImporter(path: path)
        let feed = try Self.asset("sync-feed-seed.json")
        try importer.apply(feed)
        let first = try importer.records(in: "events") + importer.records(in: "locations")
        let again = try importer.apply(feed)
        #expect(again.versionToken == "1234567890")
        #expect(try importer.records(in: "events") + importer.records(in: "locations") == first)
    }

    @Test func tokenAndDataSurviveReopening() throws {
        do {
            let importer = try SyncImporter(path: path)
            try importer.apply(try Self.asset("sync-feed-seed.json"))
        }
        let reopened = try SyncImporter(path: path)
        #expect(try reopened.versionToken == "1234567890")
        #expect(try ids(reopened, "locations") == ["2", "3"])
    }

    @Test func storeIsSharedWithTheEventQueue() throws {
        let queue = try SQLiteEventQueue(path: path)
        let importer = try SyncImporter(path: path)
        try importer.apply(try Self.asset("sync-feed-seed.json"))
        #expect(queue.depth.events == 0)
        #expect(try importer.versionToken == "1234567890")
    }

    @Test func failureMidTransactionChangesNothing() throws {
        let importer = try SyncImporter(path: path)
        try importer.apply(try Self.asset("sync-feed-seed.json"))
        // A trigger makes the deletion of event 8 fail: after the upserts of the same
        // response have been written inside the transaction.
        let queue = try StoreFile.open(path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TRIGGER fail_delete BEFORE DELETE ON sync_records WHEN OLD.id = '8'
                BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                """)
        }
        try importer.apply(Array(#"{"events":[{"id":8,"title":"x"}],"version_token":"t-mid"}"#.utf8))
        let before = try importer.records(in: "events")
        let feed = #"{"events":[{"id":1,"title":"changed"}],"locations":[{"id":5,"name":"new"}],"deleted":{"events":[8]},"version_token":"t-fail"}"#
        #expect(throws: SyncError.self) { try importer.apply(Array(feed.utf8)) }
        #expect(try importer.versionToken == "t-mid")
        #expect(try importer.records(in: "events") == before)
        #expect(try ids(importer, "locations") == ["2", "3"])
    }

    @Test(arguments: [
        ("{not json", "invalidJSON"),
        (#"[1, 2]"#, "wrongType"),
        (#"{"events": []}"#, "missingVersionToken"),
        (#"{"events": [], "version_token": ""}"#, "missingVersionToken"),
        (#"{"events": [], "version_token": 12}"#, "wrongType"),
        (#"{"events": {"id": 1}, "version_token": "t"}"#, "wrongType"),
        (#"{"events": [{"title": "no id"}], "version_token": "t"}"#, "missingID"),
        (#"{"events": [{"id": true}], "version_token": "t"}"#, "wrongType"),
        (#"{"events": [{"id": 1, "location": {"id": [2]}}], "version_token": "t"}"#, "wrongType"),
        (#"{"events": ["x"], "version_token": "t"}"#, "wrongType"),
        (#"{"deleted": [1, 2], "version_token": "t"}"#, "wrongType"),
        (#"{"deleted": {"events": 2}, "version_token": "t"}"#, "wrongType"),
        (#"{"deleted": {"events": [{"id": 2}]}, "version_token": "t"}"#, "wrongType"),
    ])
    func malformedResponsesChangeNothing(feed: String, kind: String) throws {
        let importer = try SyncImporter(path: path)
        try importer.apply(try Self.asset("sync-feed-seed.json"))
        do {
            try importer.apply(Array(feed.utf8))
            Issue.record("accepted \(feed)")
        } catch {
            #expect("\(error)".isEmpty == false)
            #expect(error.isBadInput)
            switch (error, kind) {
            case (.invalidJSON, "invalidJSON"), (.missingVersionToken, "missingVersionToken"), (.wrongType, "wrongType"),
                (.missingID, "missingID"):
                break
            default: Issue.record("\(feed): expected \(kind), got \(error)")
            }
        }
        #expect(try importer.versionToken == "1234567890")
        #expect(try ids(importer, "events") == ["1"])
        #expect(try ids(importer, "locations") == ["2", "3"])
    }

    @Test func errorsNameTheProblem() {
        #expect(throws: SyncError.wrongType(path: "events", expected: #"an array of objects with an "id""#, found: "object")) {
            _ = try SyncFeed(json: Array(#"{"events": {}, "version_token": "t"}"#.utf8))
        }
        #expect(throws: SyncError.missingID(path: "events[1]")) {
            _ = try SyncFeed(json: Array(#"{"events": [{"id": 1}, {}], "version_token": "t"}"#.utf8))
        }
    }

    @Test func nestedFieldNamesBecomeCollections() {
        #expect(SyncFeed.collectionName(forField: "location") == "locations")
        #expect(SyncFeed.collectionName(forField: "category") == "categories")
        #expect(SyncFeed.collectionName(forField: "series") == "series")
        #expect(SyncFeed.collectionName(forField: "day") == "days")
    }
}

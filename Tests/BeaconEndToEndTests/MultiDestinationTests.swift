import Beacon
import BeaconCollector
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Logging
import Testing

/// One engine, two destinations, two collectors on 127.0.0.1, a real SQLite file.
@Suite("Several destinations", .timeLimit(.minutes(2)))
struct MultiDestinationTests {
    static func sender(port: Int) throws -> HTTPSender {
        HTTPSender(
            configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: "e2e", requestTimeout: .seconds(5)),
            logger: quietLogger())
    }

    static func quietLogger() -> Logger {
        var logger = Logger(label: "beacon.multi")
        logger.logLevel = ProcessInfo.processInfo.environment["BEACON_TEST_LOG"] == nil ? .critical : .debug
        return logger
    }

    static func makeEngine(path: String, destinations: [Destination], batchSize: Int = 50) throws -> BeaconEngine<ContinuousClock> {
        BeaconEngine(
            queue: try SQLiteEventQueue(path: path, logger: quietLogger()), destinations: destinations,
            settings: EngineSettings(policy: .any([.count(batchSize), .interval(.milliseconds(20))]), batchSize: batchSize),
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(50), maxDelay: .milliseconds(200)), logger: quietLogger())
    }

    static func destination(_ snapshot: EngineSnapshot, _ name: String) -> DestinationStatus? {
        snapshot.destinations.first { $0.name == name }
    }

    @Test func aDownDestinationHoldsNothingBackAndCatchesUpExactlyOnce() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        let path = directory + "/queue.sqlite"
        let down = { var plan = FaultPlan.none; plan.down = true; return plan }()
        let count = 1_000
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"])) { primary, primaryPort in
            try await withCollector(CollectorConfiguration(writeKeys: ["e2e"], faultPlan: down)) { backup, backupPort in
                let engine = try Self.makeEngine(path: path, destinations: [
                    Destination(name: "primary", sender: try Self.sender(port: primaryPort)),
                    Destination(name: "backup", sender: try Self.sender(port: backupPort)),
                ])
                var ids: [String] = []
                try await DeliveryEndToEndTests.running(engine) {
                    for index in 0..<count {
                        ids.append(try engine.tracker.track("Multi", properties: ["index": .int(index)], anonymousId: "a").messageId)
                    }
                    // The primary gets everything while the backup is still down.
                    let caughtUp = await engine.observer.firstSnapshot { snapshot in
                        Self.destination(snapshot, "primary")?.depth == 0 && snapshot.totals.accepted == count
                            && (Self.destination(snapshot, "backup")?.consecutiveFailures ?? 0) >= 2
                    }
                    #expect(try await primary.storedCount() == count)
                    #expect(try await backup.storedCount() == 0)
                    #expect(backup.requestLog().allSatisfy { $0.status == 503 })
                    if let caughtUp {
                        #expect(Self.destination(caughtUp, "backup")?.depth == count)
                        #expect(caughtUp.depth == count, "events stay in the store for the destination that lacks them")
                    }
                    // Each event went to the primary once: no batch was sent twice.
                    #expect(primary.stats().duplicates == 0)

                    try backup.setFaultPlan(.none)
                    #expect(await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.delivered == count } != nil)
                }
                #expect(Set(try await backup.storedMessageIds()) == Set(ids))
                #expect(try await backup.storedCount() == count)
                #expect(backup.stats().duplicates == 0, "the backup got each event once after recovery")
                #expect(try await primary.storedCount() == count)
                #expect(primary.stats().duplicates == 0)
            }
        }
        // The store is empty, on disk too.
        let (events, done) = try await StoreFile.open(path).read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? -1,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM destination_done") ?? -1)
        }
        #expect(events == 0)
        #expect(done == 0)
        let reopened = try SQLiteEventQueue(path: path)
        #expect(reopened.depth.destinations["primary"] == DestinationDepth(pending: 0, delivered: count))
        #expect(reopened.depth.destinations["backup"] == DestinationDepth(pending: 0, delivered: count))
        #expect(reopened.depth.totals.delivered == count)
    }

    @Test func eachDestinationGetsTheEventsItsEnrichmentShapes() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        try await withCollector(CollectorConfiguration(writeKeys: ["e2e"])) { product, productPort in
            try await withCollector(CollectorConfiguration(writeKeys: ["e2e"])) { ads, adsPort in
                let engine = try Self.makeEngine(path: directory + "/queue.sqlite", destinations: [
                    Destination(name: "product", sender: try Self.sender(port: productPort), enrichment: [
                        .library(name: "shop-ios", version: "4.2.0"),
                        .session(id: "s-1"),
                    ]),
                    Destination(name: "ads", sender: try Self.sender(port: adsPort), enrichment: [
                        .dropEvents(["Debug Tapped"]),
                        .renameEvents(["Order Completed": "purchase"]),
                        .renameProperties(["revenue": "value"]),
                        .context(["campaign": ["source": "newsletter"]]),
                    ]),
                ], batchSize: 10)
                try await DeliveryEndToEndTests.running(engine) {
                    for index in 0..<12 {
                        try engine.tracker.track("Order Completed", properties: ["revenue": .double(9.5), "index": .int(index)], userId: "u")
                        try engine.tracker.track("Debug Tapped", properties: ["index": .int(index)], userId: "u")
                    }
                    #expect(await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.delivered == 24 } != nil)
                }
                let productEvents = try await product.storedEvents()
                let adsEvents = try await ads.storedEvents()
                #expect(productEvents.count == 24)
                #expect(adsEvents.count == 12, "the ads destination filters out the debug events")

                for stored in productEvents {
                    let event = try Self.decode(stored.json)
                    #expect(event["context"]?["library"]?["name"]?.stringValue == "shop-ios")
                    #expect(event["context"]?["library"]?["version"]?.stringValue == "4.2.0")
                    #expect(event["context"]?["session"]?["id"]?.stringValue == "s-1")
                    #expect(event["context"]?["campaign"] == nil)
                    #expect(["Order Completed", "Debug Tapped"].contains(event["event"]?.stringValue))
                }
                for stored in adsEvents {
                    let event = try Self.decode(stored.json)
                    #expect(event["event"]?.stringValue == "purchase")
                    #expect(event["properties"]?["value"]?.doubleValue == 9.5)
                    #expect(event["properties"]?["revenue"] == nil)
                    #expect(event["context"]?["campaign"]?["source"]?.stringValue == "newsletter")
                    #expect(event["context"]?["session"] == nil)
                    // The library context the tracker adds is kept: the chain merges into context.
                    #expect(event["context"]?["library"]?["name"]?.stringValue != "shop-ios")
                }
                // The same event, shaped twice: the messageIds match across destinations.
                let orders = Set(productEvents.filter { $0.name == "Order Completed" }.map(\.messageId))
                #expect(Set(adsEvents.map(\.messageId)) == orders)
                let depth = engine.queue.depth
                #expect(depth.destinations["ads"] == DestinationDepth(pending: 0, delivered: 12, filtered: 12))
                #expect(depth.destinations["product"] == DestinationDepth(pending: 0, delivered: 24))
            }
        }
    }

    static func decode(_ json: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    }
}

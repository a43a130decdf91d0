import Beacon
import BeaconCollector
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// Dead letters against a real collector: refused for a cause, retried once the cause is
/// lifted, delivered exactly once however the retries race; purges counted.
@Suite("Dead letters retried and purged", .timeLimit(.minutes(2)))
struct DeadLetterRetryTests {
    /// A collector on a free port refusing events larger than `maxEventBytes`.
    static func configuration(maxEventBytes: Int = WireLimits.maxEventBytes) -> CollectorConfiguration {
        var configuration = CollectorConfiguration(writeKeys: ["e2e"])
        configuration.limits.maxEventBytes = maxEventBytes
        return configuration
    }

    /// Tracks 3 large events (the small collector refuses them) and 2 small ones, and
    /// waits for them to settle: 3 dead letters, 2 delivered.
    static func refuseThree(_ engine: BeaconEngine<ContinuousClock>) async throws -> [String] {
        let big = String(repeating: "x", count: 600)
        var large: [String] = []
        for index in 0..<3 {
            large.append(try engine.tracker.track("Large", properties: ["index": .int(index), "blob": .string(big)], anonymousId: "a").messageId)
        }
        for index in 0..<2 { _ = try engine.tracker.track("Small", properties: ["index": .int(index)], anonymousId: "a") }
        // A flush sees what is committed: wait for the commits first.
        #expect(await engine.queue.waitForPendingWrites(timeout: .seconds(10)))
        await engine.flush()
        let settled = await engine.observer.firstSnapshot { $0.totals.deadLettered == 3 && $0.totals.delivered == 2 && $0.depth == 0 }
        #expect(settled?.deadLetters == 3)
        return large
    }

    @Test func refusedEventsAreRetriedExactlyOnceAfterTheCauseIsLifted() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        let path = directory + "/queue.sqlite"
        let (large, letters) = try await withCollector(Self.configuration(maxEventBytes: 400)) { small, port in
            let engine = try MultiDestinationTests.makeEngine(path: path, destinations: [
                Destination(sender: try MultiDestinationTests.sender(port: port)),
            ])
            var large: [String] = []
            var letters: [DeadLetter] = []
            try await DeliveryEndToEndTests.running(engine) {
                engine.setPolicy(.manual)
                large = try await Self.refuseThree(engine)
                letters = try await engine.queue.deadLetters(limit: 10)
            }
            #expect(small.stats().rejected == 3)
            return (large, letters)
        }
        #expect(Set(letters.map(\.event.messageId)) == Set(large))
        #expect(letters.allSatisfy { $0.status == 400 && $0.destination == Destination.defaultName && !$0.reason.isEmpty })
        #expect(Set(letters.map(\.id)).count == 3 && letters.allSatisfy { $0.id > 0 })

        // The cause lifted: the destination (the same name, so the same progress in the
        // store) now accepts large events. A new address, not the old port: another
        // test may have taken it meanwhile.
        try await withCollector(Self.configuration()) { roomy, port in
            let engine = try MultiDestinationTests.makeEngine(path: path, destinations: [
                Destination(sender: try MultiDestinationTests.sender(port: port)),
            ])
            try await DeliveryEndToEndTests.running(engine) {
                let ids = letters.map(\.id)
                // Two retries of the same ids and a flush, at once: one of them wins.
                async let first = engine.retryDeadLetters(.ids(ids))
                async let second = engine.retryDeadLetters(.ids(ids))
                async let flushed: Void = engine.flush()
                let outcomes = [try await first, try await second]
                await flushed
                #expect(outcomes.map(\.done.count).sorted() == [0, 3], "one retry takes all three, the other finds none")
                #expect(outcomes.contains { $0.missing.sorted() == ids.sorted() })
                let again = try await engine.retryDeadLetters(.all)
                #expect(again.done.isEmpty)
                let delivered = await engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.deadLettersRetried == 3 }
                #expect(delivered?.deadLetters == 0)
            }
            #expect(Set(try await roomy.storedMessageIds()) == Set(large))
            #expect(try await roomy.storedCount() == 3)
            #expect(roomy.stats().duplicates == 0, "each retried event went out once")
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func purgeRemovesDeadLettersAndCountsThem() async throws {
        let temporary = try TemporaryStore("e2e")
        defer { withExtendedLifetime(temporary) {} }  // removed with its files when the test ends
        let directory = temporary.directory
        let path = directory + "/queue.sqlite"
        try await withCollector(Self.configuration(maxEventBytes: 400)) { _, port in
            let engine = try MultiDestinationTests.makeEngine(path: path, destinations: [
                Destination(sender: try MultiDestinationTests.sender(port: port)),
            ])
            try await DeliveryEndToEndTests.running(engine) {
                engine.setPolicy(.manual)
                _ = try await Self.refuseThree(engine)
                let letters = try await engine.queue.deadLetters(limit: 10)
                let one = try await engine.purgeDeadLetters(.ids([letters[0].id]))
                #expect(one.done == [letters[0].id])
                let missing = try await engine.purgeDeadLetters(.ids([letters[0].id, letters[1].id]))
                #expect(missing.done.isEmpty && missing.missing == [letters[0].id], "a missing id changes nothing")
                #expect(try await engine.queue.deadLetter(id: letters[1].id) != nil)
                let rest = try await engine.purgeDeadLetters(.all)
                #expect(rest.done.count == 2)
                let counted = await engine.observer.firstSnapshot { $0.totals.deadLettersPurged == 3 && $0.deadLetters == 0 }
                #expect(counted != nil)
            }
        }
        // Counted in the store, for the next engine too.
        let reopened = try SQLiteEventQueue(path: path)
        #expect(reopened.depth.totals.deadLettersPurged == 3)
        #expect(reopened.depth.deadLetters == 0)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

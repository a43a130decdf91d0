import Beacon
import BeaconWire
import Foundation
import Testing

/// The SQLite queue against a model: the in-memory queue, driven with the same seeded
/// random sequences of appends, peeks, settles (delivered, dead-lettered, out of order
/// across destinations), lease releases, dead-letter retries and purges, and reopening
/// the store, compared after every step: depth, each destination's pending events and
/// what it would send next, and the dead letters (by messageId, with their attempts).
@Suite("Queue against its model", .timeLimit(.minutes(2)))
struct QueueModelTests {
    let queues: DestinationQueueTests

    init() throws {
        queues = try DestinationQueueTests()
    }

    /// One step, chosen by the seed.
    enum Step: CaseIterable {
        case append, peekAndSettle, release, retryLetter, purgeLetter, reopen
    }

    static let destinations = ["a", "b"]

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func sqliteAgreesWithTheModel(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        var sqlite: any EventQueue = try queues.makeQueue(.sqlite)
        let model = InMemoryEventQueue(maxQueuedEvents: 1_000_000)
        for name in Self.destinations {
            try await sqlite.register(destination: name)
            try await model.register(destination: name)
        }
        var appended = 0
        for step in 0..<500 {
            let choice = Int.random(in: 0..<100, using: &random)
            let kind: Step = choice < 40 ? .append : choice < 75 ? .peekAndSettle : choice < 82 ? .release
                : choice < 90 ? .retryLetter : choice < 95 ? .purgeLetter : .reopen
            switch kind {
            case .append:
                let count = Int.random(in: 1...5, using: &random)
                for _ in 0..<count {
                    let event = Event(name: "e\(appended)", properties: ["n": .int(appended)])
                    appended += 1
                    for queue in [sqlite, model] as [any EventQueue] {
                        _ = queue.append(PendingEvent(messageId: event.messageId, name: event.name ?? "", payload: event.jsonBytes, createdAt: .now()))
                    }
                }
                await sqlite.waitForPendingWrites()
                await model.waitForPendingWrites()
            case .peekAndSettle:
                let destination = Self.destinations.randomElement(using: &random) ?? "a"
                let limit = Int.random(in: 1...8, using: &random)
                let fromSQLite = try await sqlite.peek(for: destination, after: nil, limit: limit, maxBytes: .max)
                let fromModel = try await model.peek(for: destination, after: nil, limit: limit, maxBytes: .max)
                #expect(fromSQLite.map(\.messageId) == fromModel.map(\.messageId), "step \(step): \(destination)'s head")
                guard !fromSQLite.isEmpty, fromSQLite.map(\.messageId) == fromModel.map(\.messageId) else { break }
                // Each event delivered or refused for good, by the same coin for both.
                let refused = fromSQLite.indices.map { _ in Int.random(in: 0..<5, using: &random) == 0 }
                for (queue, events) in [(sqlite, fromSQLite), (model as any EventQueue, fromModel)] {
                    let record = BatchRecord(
                        id: queue.makeBatchID(), destination: destination, startedAt: .now(), duration: .zero, events: events.count,
                        bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
                    let letters = zip(events, refused).filter(\.1).map {
                        DeadLetter(event: $0.0, reason: "refused at step \(step)", destination: destination, status: 400, failedAt: .now())
                    }
                    try await queue.settle(BatchSettlement(
                        record: record, delivered: zip(events, refused).filter { !$0.1 }.map(\.0.sequence), deadLetters: letters,
                        through: events.last?.sequence))
                }
            case .release:
                for name in Self.destinations {
                    sqlite.releaseLeases(for: name)
                    model.releaseLeases(for: name)
                }
            case .retryLetter, .purgeLetter:
                let letters = try await model.deadLetters(limit: 1_000)
                guard let pick = letters.randomElement(using: &random) else { break }
                let inSQLite = try await sqlite.deadLetters(limit: 1_000).first { $0.event.messageId == pick.event.messageId && $0.destination == pick.destination }
                let twin = try #require(inSQLite, "step \(step): the store has the model's letter \(pick.event.messageId)")
                if kind == .retryLetter {
                    #expect(try await sqlite.retryDeadLetters(.ids([twin.id])).done == [twin.id])
                    #expect(try await model.retryDeadLetters(.ids([pick.id])).done == [pick.id])
                } else {
                    #expect(try await sqlite.purgeDeadLetters(.ids([twin.id])).done == [twin.id])
                    #expect(try await model.purgeDeadLetters(.ids([pick.id])).done == [pick.id])
                }
            case .reopen:
                // What a restart leaves: leases are gone, the rest is in the file.
                _ = await (sqlite as? SQLiteEventQueue)?.close()
                sqlite = try queues.makeQueue(.sqlite)
                for name in Self.destinations { model.releaseLeases(for: name) }
            }
            try await Self.compare(sqlite, model, step: step, kind: kind)
        }
        #expect(appended > 500, "the sequence appended \(appended) events")
    }

    /// Depth, each destination's pending count, and the dead letters with their attempts.
    static func compare(_ sqlite: any EventQueue, _ model: InMemoryEventQueue, step: Int, kind: Step) async throws {
        let (stored, modelled) = (sqlite.depth, model.depth)
        #expect(stored.events == modelled.events, "step \(step) (\(kind)): depth")
        for name in destinations {
            #expect(stored.pending(for: name) == modelled.pending(for: name), "step \(step) (\(kind)): \(name)'s pending")
        }
        let letters = { (queue: any EventQueue) async throws -> [String] in
            try await queue.deadLetters(limit: 10_000).map { "\($0.destination) \($0.event.messageId) ×\($0.attemptCount)" }.sorted()
        }
        #expect(try await letters(sqlite) == (try await letters(model)), "step \(step) (\(kind)): dead letters")
        #expect(try await sqlite.deadLetterCount() == (try await model.deadLetterCount()), "step \(step) (\(kind)): dead letters held")
    }
}

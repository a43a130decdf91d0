@testable import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import GRDB
import Testing

/// A dead letter keeps its id across retries and gains an attempt each time its copy is
/// refused again; searches find letters by messageId, destination, reason and payload;
/// a bulk retry or purge by search acts on what it finds and nothing else. On both queues.
@Suite struct DeadLetterHistoryTests {
    typealias Kind = DestinationQueueTests.Kind
    let queues: DestinationQueueTests

    init() throws {
        queues = try DestinationQueueTests()
    }

    /// Refuses the head `count` events for `destination`, each with `reason` (its index
    /// appended), and returns them.
    func refuse(_ queue: any EventQueue, _ destination: String, count: Int, reason: String, status: Int = 400) async throws -> [QueuedEvent] {
        let head = try await queue.peek(for: destination, after: nil, limit: count, maxBytes: .max)
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: destination, startedAt: .now(), duration: .zero,
            events: head.count, bytes: 0, attempt: 1, status: status, outcome: .sent, error: nil)
        let letters = head.enumerated().map { index, event in
            DeadLetter(event: event, reason: "\(reason) \(index)", destination: destination, status: status, failedAt: .now())
        }
        try await queue.settle(BatchSettlement(record: record, deadLetters: letters, through: head.last?.sequence))
        queue.releaseLeases(for: destination)
        return head
    }

    @Test(arguments: Kind.allCases)
    func aLetterRefusedAgainAfterARetryKeepsItsIdAndGainsAnAttempt(_ kind: Kind) async throws {
        let queue = try queues.makeQueue(kind)
        try await queue.register(destination: "main")
        await queues.fill(queue, 1)
        let event = try #require(try await refuse(queue, "main", count: 1, reason: "event_too_large: first").first)
        let first = try #require(try await queue.deadLetters(limit: 10).first)
        #expect(first.attemptCount == 1 && first.attempts.map(\.reason) == ["event_too_large: first 0"])

        for round in 2...3 {
            let retried = try await queue.retryDeadLetters(.ids([first.id]))
            #expect(retried.done == [first.id])
            #expect(try await queue.deadLetterCount() == 0)
            _ = try await refuse(queue, "main", count: 1, reason: "event_too_large: round \(round)", status: 413)
            let letters = try await queue.deadLetters(limit: 10)
            #expect(letters.count == 1, "one letter, not a new one per retry")
            let again = try #require(letters.first)
            #expect(again.id == first.id, "the id is stable across retries (round \(round))")
            #expect(again.event.messageId == event.messageId)
            #expect(again.attemptCount == round)
            #expect(again.attempts.map(\.number) == Array(1...round))
            #expect(again.attempts.last?.reason == "event_too_large: round \(round) 0" && again.attempts.last?.status == 413)
            #expect(again.attempts.first?.status == 400, "the first refusal kept its own status")
            #expect(try await queue.deadLetter(id: first.id)?.attempts == again.attempts)
        }
        // Purged for good: a later letter starts afresh, with a new id.
        _ = try await queue.purgeDeadLetters(.ids([first.id]))
        await queues.fill(queue, 1)
        _ = try await refuse(queue, "main", count: 1, reason: "other")
        let fresh = try #require(try await queue.deadLetters(limit: 10).first)
        #expect(fresh.id != first.id && fresh.attemptCount == 1)
    }

    @Test(arguments: Kind.allCases)
    func aRetriedCopyThatIsDeliveredLeavesNoHistoryBehind(_ kind: Kind) async throws {
        guard kind == .sqlite else { return }  // the tables are the SQLite store's
        let queue = try queues.makeQueue(kind)
        try await queue.register(destination: "main")
        await queues.fill(queue, 2)
        _ = try await refuse(queue, "main", count: 2, reason: "refused")
        let letters = try await queue.deadLetters(limit: 10)
        _ = try await queue.retryDeadLetters(.ids([letters[0].id]))
        let copy = try await queue.peek(for: "main", after: nil, limit: 10, maxBytes: .max)
        try await queues.settle(queue, "main", delivered: copy)
        _ = try await queue.purgeDeadLetters(.ids([letters[1].id]))  // the prune runs after an operator's change
        let rows = try await StoreFile.open(queues.path).read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM dead_letter_retries") ?? -1,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM dead_letter_attempts") ?? -1)
        }
        #expect(rows.0 == 0 && rows.1 == 0, "retries \(rows.0), attempts \(rows.1)")
    }

    /// A store from before `v6-dead-letter-attempts` holding a letter: the migration gives
    /// it one attempt, and a retry refused again keeps its id.
    @Test func aStoreFromBeforeTheAttemptsTableMigratesItsLetters() async throws {
        do {
            let queue = try queues.makeQueue(.sqlite)
            try await queue.register(destination: "main")
            await queues.fill(queue, 1)
            _ = try await refuse(queue, "main", count: 1, reason: "old refusal")
        }
        try await StoreFile.open(queues.path).write { db in
            try db.execute(sql: """
                DROP TABLE dead_letter_attempts;
                DROP TABLE dead_letter_retries;
                DELETE FROM grdb_migrations WHERE identifier = 'v6-dead-letter-attempts';
                """)
        }
        let queue = try queues.makeQueue(.sqlite)
        let letter = try #require(try await queue.deadLetters(limit: 10).first)
        #expect(letter.attempts.map(\.reason) == ["old refusal 0"])
        let rows = try await StoreFile.open(queues.path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM dead_letter_attempts") }
        #expect(rows == 1, "the migration recorded its one attempt")
        _ = try await queue.retryDeadLetters(.ids([letter.id]))
        _ = try await refuse(queue, "main", count: 1, reason: "new refusal")
        let again = try #require(try await queue.deadLetters(limit: 10).first)
        #expect(again.id == letter.id && again.attempts.map(\.reason) == ["old refusal 0", "new refusal 0"])
    }

    @Test(arguments: Kind.allCases)
    func aSearchFindsLettersByMessageIdDestinationReasonAndPayload(_ kind: Kind) async throws {
        let queue = try queues.makeQueue(kind)
        try await queue.register(destination: "main")
        try await queue.register(destination: "backup")
        await queues.fill(queue, 6)
        let main = try await refuse(queue, "main", count: 4, reason: "Event_Too_Large")
        _ = try await refuse(queue, "backup", count: 2, reason: "invalid_event")

        let byId = try await queue.deadLetters(matching: DeadLetterQuery(text: main[2].messageId.uppercased()), limit: 50)
        #expect(byId.total == 1 && byId.letters.first?.event.messageId == main[2].messageId, "ASCII case ignored")
        let byDestination = try await queue.deadLetters(matching: DeadLetterQuery(destination: "backup"), limit: 50)
        #expect(byDestination.total == 2 && byDestination.letters.allSatisfy { $0.destination == "backup" })
        let byReason = try await queue.deadLetters(matching: DeadLetterQuery(reason: "too_large"), limit: 2)
        #expect(byReason.total == 4 && byReason.letters.count == 2, "the total counts past the limit")
        let byPayload = try await queue.deadLetters(matching: DeadLetterQuery(text: "\"e1\""), limit: 50)
        #expect(byPayload.letters.map(\.destination).sorted() == ["backup", "main"], "the event JSON is searched")
        let both = try await queue.deadLetters(matching: DeadLetterQuery(destination: "main", reason: "invalid"), limit: 50)
        #expect(both.total == 0, "every part must hold")
        let everything = try await queue.deadLetters(matching: DeadLetterQuery(), limit: 50)
        #expect(everything.total == 6)
        for hostile in ["%", "_x_", "'", "\"); DROP TABLE dead_letters; --", "\u{FFFD}", String(repeating: "x", count: 1024)] {
            #expect(try await queue.deadLetters(matching: DeadLetterQuery(text: hostile), limit: 50).total == 0, "\(hostile)")
        }
        #expect(try await queue.deadLetterCount() == 6)
    }

    @Test(arguments: Kind.allCases)
    func aBulkRetryBySearchActsOnWhatItFindsOnly(_ kind: Kind) async throws {
        let queue = try queues.makeQueue(kind)
        try await queue.register(destination: "main")
        await queues.fill(queue, 5)
        let head = try await queue.peek(for: "main", after: nil, limit: 5, maxBytes: .max)
        queue.releaseLeases(for: "main")
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: "main", startedAt: .now(), duration: .zero,
            events: 5, bytes: 0, attempt: 1, status: 400, outcome: .sent, error: nil)
        let letters = head.enumerated().map { index, event in
            DeadLetter(event: event, reason: index < 3 ? "event_too_large" : "invalid_event", destination: "main", status: 400, failedAt: .now())
        }
        try await queue.settle(BatchSettlement(record: record, deadLetters: letters, through: head.last?.sequence))
        queue.releaseLeases(for: "main")

        let retried = try await queue.retryDeadLetters(.matching(DeadLetterQuery(reason: "too_large")))
        #expect(retried.done.count == 3)
        #expect(try await queue.peek(for: "main", after: nil, limit: 10, maxBytes: .max).map(\.messageId)
            == head.prefix(3).map(\.messageId), "exactly the found letters went back, in order")
        queue.releaseLeases(for: "main")
        let left = try await queue.deadLetters(limit: 10)
        #expect(left.count == 2 && left.allSatisfy { $0.reason == "invalid_event" })
        let purged = try await queue.purgeDeadLetters(.matching(DeadLetterQuery(text: head[4].messageId)))
        #expect(purged.done.count == 1)
        #expect(try await queue.deadLetters(limit: 10).map(\.event.messageId) == [head[3].messageId])
        let none = try await queue.retryDeadLetters(.matching(DeadLetterQuery(reason: "nothing like it")))
        #expect(none.done.isEmpty && none.missing.isEmpty)
    }

    @Test func aTypedSearchReadsItsPartsAndRefusesBadOnes() throws {
        let query = try DeadLetterQuery(parsing: "  dest:main   reason:too_large  8f3a  order ")
        #expect(query == DeadLetterQuery(destination: "main", reason: "too_large", text: "8f3a order"))
        #expect(query.description == "dest:main reason:too_large 8f3a order")
        #expect(try DeadLetterQuery(parsing: query.description) == query, "what it prints reads back")
        #expect(try DeadLetterQuery(parsing: "").isEmpty)
        #expect(try DeadLetterQuery(parsing: "Destination:backup").destination == "backup")
        for bad in ["dest:", "reason:", "a\0b", String(repeating: "y", count: 1025)] {
            #expect(throws: DeadLetterQuery.ParseError.self, "\(bad.prefix(20))") { try DeadLetterQuery(parsing: bad) }
        }
    }

    @Test func theControlChannelCarriesASearchAndRefusesBadOnes() throws {
        let command = ControlCommand.deadRetry(.matching(DeadLetterQuery(destination: "main", reason: "too_large")))
        let line = String(decoding: ControlRequest(id: 1, command: command).line, as: UTF8.self)
        #expect(ControlCommand.parse(name: command.name, argument: command.argument) == .success(command), "\(line)")
        for argument in [
            #"{"matching":{}}"#, #"{"matching":{"reason":""}}"#, #"{"matching":{"reason":5}}"#, #"{"matching":{"color":"red"}}"#,
            #"{"matching":"all"}"#, #"{"matching":{"text":"a\u0000b"}}"#, #"{"matching":{"reason":"x"},"extra":1}"#,
            #"{"matching":{"text":"\#(String(repeating: "z", count: 1025))"}}"#, #"{"matching":{"reason":null}}"#,
        ] {
            let value = try JSONDecoder().decode(JSONValue.self, from: Data(argument.utf8))
            guard case .failure(let refusal) = ControlCommand.parse(name: "dead-purge", argument: value) else {
                Issue.record("accepted \(argument)")
                continue
            }
            #expect(refusal.reason.contains("dead-purge"), "\(refusal.reason)")
        }
    }
}

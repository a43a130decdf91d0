@testable import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// A batch read from a real store: each event's `messageId`, name and JSON come back byte
/// for byte as slices of one buffer, the byte limit counts the JSON alone, and a settle
/// counts the bytes that leave from what the read saw.
@Suite("Queue reads as slices", .timeLimit(.minutes(1)))
struct QueueReadSlicesTests {
    /// Removed, with the files the test left in it, when the test ends.
    let store: TemporaryStore
    var directory: String { store.directory }

    init() throws {
        store = try TemporaryStore("tests")
    }

    var path: String { directory + "/queue.sqlite" }

    /// Ids and names of every shape a store holds: long, one byte, non-ASCII, the same
    /// text in two Unicode forms, empty names (identify calls have none).
    static let fields: [(id: String, name: String)] = [
        (UUID().uuidString, "Order Completed"),
        ("a", ""),
        (String(repeating: "x", count: WireEvent.maxMessageIdBytes), "café ☕️"),
        ("id-\u{E9}", "\u{E9}"),  // é, precomposed
        ("id-e\u{301}", "e\u{301}"),  // é, decomposed: a different id to a collector
        ("🧭-\(UUID().uuidString)", String(repeating: "n", count: 300)),
    ]

    func pending(_ index: Int) -> PendingEvent {
        let (id, name) = Self.fields[index]
        let json = Array(#"{"messageId":"\#(index)","type":"track","pad":"\#(String(repeating: "p", count: 10 * index))"}"#.utf8)
        return PendingEvent(messageId: id, name: name, payload: json, createdAt: .now())
    }

    @Test("each field comes back byte for byte, and equals an event made from strings")
    func fieldsComeBackByteForByte() async throws {
        let queue = try SQLiteEventQueue(path: path)
        let written = Self.fields.indices.map(pending)
        for event in written { _ = queue.append(event) }
        await queue.waitForPendingWrites()
        let read = try await queue.peek(limit: 100, maxBytes: .max)
        #expect(read.count == written.count)
        for (event, original) in zip(read, written) {
            #expect(Array(event.messageIdBytes) == Array(original.messageId.utf8))
            #expect(Array(event.nameBytes) == Array(original.name.utf8))
            #expect(event.payload == original.payload)
            #expect(event.messageId == original.messageId)
            #expect(event.name == original.name)
            #expect(event == QueuedEvent(sequence: event.sequence, messageId: original.messageId, name: original.name, payload: original.payload))
        }
        // Slices of one buffer: past the first event, every field starts inside it.
        #expect(read.dropFirst().allSatisfy { $0.messageIdBytes.startIndex > 0 && $0.payloadBytes.startIndex > 0 })
    }

    @Test("the byte limit counts the events' JSON, not their ids and names")
    func byteLimitCountsPayloadsOnly() async throws {
        let queue = try SQLiteEventQueue(path: path)
        for index in Self.fields.indices { _ = queue.append(pending(index)) }
        await queue.waitForPendingWrites()
        let all = try await queue.peek(limit: 100, maxBytes: .max)
        let firstThree = all.prefix(3).reduce(0) { $0 + $1.payloadCount }
        #expect(try await queue.peek(limit: 100, maxBytes: firstThree).count == 3)
        #expect(try await queue.peek(limit: 100, maxBytes: firstThree - 1).count == 2)
    }

    @Test("a batch with the same id twice keeps the second as a later copy; ids that differ in bytes are both sent")
    func copiesAreFoundByBytes() async throws {
        let queue = try SQLiteEventQueue(path: path)
        for index in Self.fields.indices { _ = queue.append(pending(index)) }
        _ = queue.append(pending(0))  // a client's resend of the first
        await queue.waitForPendingWrites()
        let read = try await queue.peek(limit: 100, maxBytes: .max)
        let (first, later) = Batcher<ContinuousClock>.firstCopies(read)
        #expect(first.map(\.sequence) == Array(1...Int64(Self.fields.count)), "both forms of é go out")
        #expect(later.map(\.sequence) == [Int64(Self.fields.count + 1)])
    }

    @Test("copies are split out wherever they fall, in queue order, against a plain reference")
    func copiesMatchAReference() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let count = round == 0 ? 0 : Int.random(in: 1...40, using: &generator)
            let idSpace = Int.random(in: 1...max(1, count * 2), using: &generator)
            let events = (0..<count).map { index in
                QueuedEvent(
                    sequence: Int64(index + 1), messageId: "m\(Int.random(in: 0..<idSpace, using: &generator))", name: "e",
                    payload: Array("{}".utf8))
            }
            var seen = Set<[UInt8]>()
            let expected = events.map { seen.insert(Array($0.messageIdBytes)).inserted }
            let (first, later) = Batcher<ContinuousClock>.firstCopies(events)
            #expect(first.map(\.sequence) == zip(events, expected).filter { $0.1 }.map(\.0.sequence))
            #expect(later.map(\.sequence) == zip(events, expected).filter { !$0.1 }.map(\.0.sequence))
        }
    }

    @Test("a settle counts the bytes that leave from the read, or from the store when it has no read to go by")
    func settleCountsBytesThatLeave() async throws {
        let payloadBytes: Int
        do {
            let queue = try SQLiteEventQueue(path: path)
            for index in Self.fields.indices { _ = queue.append(pending(index)) }
            await queue.waitForPendingWrites()
            let read = try await queue.peek(limit: 100, maxBytes: .max)
            payloadBytes = read.reduce(0) { $0 + $1.payloadCount }
            #expect(queue.depth.bytes == payloadBytes)
            // The first two, from the sizes the read saw.
            try await queue.settle(settlement(queue, delivered: read.prefix(2).map(\.sequence), through: read[1].sequence))
            #expect(queue.depth.bytes == payloadBytes - read.prefix(2).reduce(0) { $0 + $1.payloadCount })
        }
        // Reopened: no read to go by, so the next two are counted from the store.
        let reopened = try SQLiteEventQueue(path: path)
        let rest = try await reopened.peek(limit: 100, maxBytes: .max)
        let restBytes = rest.reduce(0) { $0 + $1.payloadCount }
        #expect(reopened.depth.bytes == restBytes)
        reopened.releaseLeases(for: Destination.defaultName)
        try await reopened.settle(settlement(reopened, delivered: rest.prefix(2).map(\.sequence), through: rest[1].sequence))
        #expect(reopened.depth.bytes == restBytes - rest.prefix(2).reduce(0) { $0 + $1.payloadCount })
        #expect(reopened.depth.events == rest.count - 2)
    }

    private func settlement(_ queue: SQLiteEventQueue, delivered: [Int64], through: Int64) -> BatchSettlement {
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: Destination.defaultName, startedAt: .now(), duration: .milliseconds(1),
            events: delivered.count, bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
        return BatchSettlement(record: record, delivered: delivered, through: through)
    }
}

import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// `beacon events` and the console's pending view read the queue's head and tail with a
/// ``StoreReader``: per destination, across segments, past out-of-order settles, with a
/// text filter, on a real store file.
@Suite("Pending events: the queue's head and tail, read beside the writer", .timeLimit(.minutes(1)))
struct PendingEventsTests {
    let store: TemporaryStore
    var path: String { store.directory + "/queue.sqlite" }

    init() throws {
        store = try TemporaryStore("pending-events")
    }

    /// 30 events in segments of 4, for destinations `a` and `b`; every third carries
    /// `marker`, event 7 alone `needle`.
    func filledQueue() async throws -> (SQLiteEventQueue, [PendingEvent]) {
        var configuration = SQLiteEventQueue.Configuration()
        configuration.segmentEvents = 4
        let queue = try SQLiteEventQueue(path: path, configuration: configuration)
        try await queue.register(destination: "a")
        try await queue.register(destination: "b")
        var appended: [PendingEvent] = []
        for index in 0..<30 {
            var properties: [String: JSONValue] = ["index": .int(index)]
            if index % 3 == 0 { properties["tag"] = "marker" }
            if index == 7 { properties["tag"] = "needle" }
            let event = Event(name: "e\(index)", properties: properties)
            let pending = PendingEvent(messageId: event.messageId, name: "e\(index)", payload: event.jsonBytes, createdAt: .now())
            _ = queue.append(pending)
            appended.append(pending)
        }
        await queue.waitForPendingWrites()
        return (queue, appended)
    }

    func settle(_ queue: SQLiteEventQueue, _ destination: String, sequences: [Int64]) async throws {
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: destination, startedAt: .now(), duration: .zero, events: sequences.count,
            bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
        try await queue.settle(BatchSettlement(record: record, delivered: sequences, deadLetters: [], filtered: [], through: nil))
    }

    @Test("Head and tail per destination, past an out-of-order settle, across segments")
    func headAndTailPerDestination() async throws {
        let (queue, appended) = try await filledQueue()
        try await settle(queue, "a", sequences: [1, 2, 3, 4, 5, 9])
        let reader = try StoreReader(path: path)

        let a = try await reader.pendingEvents(PendingEventQuery(destination: "a", limit: 3))
        #expect(a.pending == 24)
        #expect(a.head.map(\.sequence) == [6, 7, 8])
        #expect(a.tail.map(\.sequence) == [28, 29, 30])
        #expect(a.matching == 24 && a.hasGap)
        #expect(a.destinations == ["a", "b"])
        // The rows are the events as appended, byte for byte.
        for record in a.events {
            let original = appended[Int(record.sequence) - 1]
            #expect(record.messageId == original.messageId && record.name == original.name && record.payload == original.payload)
        }

        // A limit past half the queue: the tail is what the head left, no gap, nothing twice.
        let wide = try await reader.pendingEvents(PendingEventQuery(destination: "a", limit: 20))
        #expect(wide.head.map(\.sequence) == [6, 7, 8] + Array(10...26))
        #expect(wide.tail.map(\.sequence) == [27, 28, 29, 30])
        #expect(!wide.hasGap)

        // `b` has all 30; any destination: what some destination still needs.
        let b = try await reader.pendingEvents(PendingEventQuery(destination: "b", limit: 2))
        #expect(b.pending == 30 && b.head.map(\.sequence) == [1, 2] && b.tail.map(\.sequence) == [29, 30])
        try await settle(queue, "b", sequences: [1, 2, 3, 4])
        let any = try await reader.pendingEvents(PendingEventQuery(limit: 2))
        #expect(any.pending == 26, "1...4 left: both destinations are done with them")
        #expect(any.head.map(\.sequence) == [5, 6])
        _ = await queue.close()
    }

    @Test("A text filter: the one event that has it, or as many from each end, uncounted past them")
    func textFilter() async throws {
        let (queue, _) = try await filledQueue()
        let reader = try StoreReader(path: path)
        let needle = try await reader.pendingEvents(PendingEventQuery(destination: "a", containing: "needle", limit: 5))
        #expect(needle.events.map(\.sequence) == [8])
        #expect(needle.matching == 1 && !needle.hasGap && needle.pending == 30)

        // Ten events carry `marker`: indexes 0, 3, … 27, sequences 1, 4, … 28.
        let markers = try await reader.pendingEvents(PendingEventQuery(containing: "marker", limit: 2))
        #expect(markers.head.map(\.sequence) == [1, 4])
        #expect(markers.tail.map(\.sequence) == [25, 28])
        #expect(markers.matching == nil && markers.hasGap, "more than shown: not counted without reading them all")
        let all = try await reader.pendingEvents(PendingEventQuery(containing: "marker", limit: 6))
        #expect(all.events.map(\.sequence) == [1, 4, 7, 10, 13, 16, 19, 22, 25, 28])
        #expect(all.matching == 10 && !all.hasGap)

        let none = try await reader.pendingEvents(PendingEventQuery(containing: "\u{0}nothing", limit: 5))
        #expect(none.events.isEmpty && none.matching == 0)
        _ = await queue.close()
    }

    @Test("A destination the store does not have: nothing, and the names it has")
    func unknownDestination() async throws {
        let (queue, _) = try await filledQueue()
        let page = try await StoreReader(path: path).pendingEvents(PendingEventQuery(destination: "nope", limit: 5))
        #expect(page.events.isEmpty && page.pending == 0 && page.destinations == ["a", "b"])
        _ = await queue.close()
    }

    @Test("Limits out of range are clamped, not trusted", arguments: [Int.min, -1, 0, 1_001, Int.max])
    func limitsAreClamped(_ limit: Int) {
        #expect(PendingEventQuery.limits.contains(PendingEventQuery(limit: limit).limit))
    }
}

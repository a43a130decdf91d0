@_spi(Testing) import Beacon
import BeaconTesting
import BeaconWire
import Testing

/// The queue's one stream out: every subscriber gets every fact once, in order, and a
/// subscriber that does not read holds one merged commit, not one per commit.
@Suite("Queue facts", .timeLimit(.minutes(1)))
struct QueueFactsTests {
    static func event(_ index: Int) -> PendingEvent {
        let event = Event(name: "e\(index)", properties: ["index": .int(index)])
        return PendingEvent(messageId: event.messageId, name: "e\(index)", payload: event.jsonBytes, createdAt: .now())
    }

    /// A reader of `facts` in a task of its own, returned once it waits for a fact.
    static func waitingReader(_ facts: QueueFacts) async -> Task<[QueueEvent]?, Never> {
        let reader = Task { await facts.nextFacts() }
        #expect(await eventually { facts.isReaderWaiting }, "the reader waits")
        return reader
    }

    /// Both queues, the SQLite one on a real file.
    static func queues(_ store: TemporaryStore) throws -> [any EventQueue] {
        [InMemoryEventQueue(), try SQLiteEventQueue(path: store.path)]
    }

    @Test("every subscriber reads every fact in order; commits unread in a row are one")
    func everySubscriberReadsEveryFact() async throws {
        let store = try TemporaryStore("facts")
        for queue in try Self.queues(store) {
            try await queue.register(destination: "default")
            let first = queue.facts()
            let second = queue.facts()
            for index in 0..<10 {
                _ = queue.append(Self.event(index))
                await queue.waitForPendingWrites()  // ten commits
            }
            let head = try await queue.peek(limit: 4, maxBytes: .max)
            let record = BatchRecord(
                id: queue.makeBatchID(), destination: "default", startedAt: .now(), duration: .milliseconds(1), events: 4,
                bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
            try await queue.settle(BatchSettlement(record: record, delivered: head.map(\.sequence), through: head.last?.sequence))
            _ = queue.append(Self.event(10))
            await queue.waitForPendingWrites()
            for facts in [first, second] {
                let read = facts.takeAvailable()
                #expect(read.count == 3, "\(queue.location): \(read)")
                guard read.count == 3 else { continue }
                guard case .committed(let count, let depth) = read[0] else {
                    Issue.record("\(queue.location): \(read[0])")
                    continue
                }
                #expect(count == 10)
                #expect(depth.events == 10)
                guard case .settled(let settlement, let settledDepth) = read[1] else {
                    Issue.record("\(queue.location): \(read[1])")
                    continue
                }
                #expect(settlement.record.id == record.id)
                #expect(settledDepth.events == 6)
                guard case .committed(1, let last) = read[2] else {
                    Issue.record("\(queue.location): \(read[2])")
                    continue
                }
                #expect(last.events == 7)
                #expect(facts.takeAvailable().isEmpty, "each fact is read once")
            }
        }
    }

    @Test("a reader that waits is woken by a fact published later")
    func aWaitingReaderIsWoken() async throws {
        let store = try TemporaryStore("facts-wait")
        for queue in try Self.queues(store) {
            let facts = queue.facts()
            async let read = facts.nextFacts()
            _ = queue.append(Self.event(0))
            let woken = try #require(await read)  // bounded by the suite's time limit
            #expect(woken.count == 1)
            if case .committed(1, let depth) = woken.first {
                #expect(depth.events == 1)
            } else {
                Issue.record("\(queue.location): \(woken)")
            }
        }
    }

    @Test("a reader that waits for all but commits is woken by the first other fact, with the commits before it")
    func commitsWaitForTheNextOtherFact() async throws {
        let store = try TemporaryStore("facts-lazy")
        var configuration = SQLiteEventQueue.Configuration()
        configuration.maxQueuedEvents = 3
        let queue = try SQLiteEventQueue(path: store.path, configuration: configuration)
        let facts = queue.facts(wake: .notForCommits)
        let read = await Self.waitingReader(facts)
        for index in 0..<3 {
            _ = queue.append(Self.event(index))
            await queue.waitForPendingWrites()
        }
        // Three commits, none past the bound: the reader sleeps on (had they woken it, it
        // would have read the first alone, not the four merged below).
        #expect(facts.isReaderWaiting)
        _ = queue.append(Self.event(3))  // past the bound: a commit and a drop
        let facts_ = try #require(await read.value)
        #expect(facts_.count == 2, "\(facts_)")
        if case .committed(4, _)? = facts_.first {} else { Issue.record("\(facts_)") }
        if case .dropped(1, _, _)? = facts_.last {} else { Issue.record("\(facts_)") }
    }

    @Test("waking for commits again wakes a reader that has commits waiting")
    func setWakeWakesAReaderWithCommitsWaiting() async throws {
        let queue = InMemoryEventQueue()
        let facts = queue.facts(wake: .notForCommits)
        let read = await Self.waitingReader(facts)
        _ = queue.append(Self.event(0))
        await queue.waitForPendingWrites()
        #expect(facts.isReaderWaiting, "a commit alone does not wake it")
        facts.setWake(.always)
        let got = try #require(await read.value)
        #expect(got.count == 1)
    }

    @Test("a subscription goes when its reader is cancelled or its value is gone, and the queue holds nothing for it")
    func subscriptionsEnd() async throws {
        let queue = InMemoryEventQueue()
        let reader = Task { () -> Int in
            var count = 0
            for await _ in queue.facts() { count += 1 }
            return count  // the loop ends: cancelled
        }
        #expect(await eventually { queue.factSubscriptions == 1 }, "the reader subscribed")
        reader.cancel()
        _ = await reader.value
        #expect(queue.factSubscriptions == 0)
        do {
            let unread = queue.facts()
            _ = queue.append(Self.event(1))
            await queue.waitForPendingWrites()
            #expect(queue.factSubscriptions == 1)
            withExtendedLifetime(unread) {}
        }
        #expect(queue.factSubscriptions == 0)
    }
}

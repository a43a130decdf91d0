@testable import Beacon
import BeaconWire
import Dispatch
import Synchronization
import Testing

/// The memory side of the queue, driven through a commit function the test controls.
@Suite("Group commit buffer", .timeLimit(.minutes(1)))
struct GroupCommitBufferTests {
    /// A commit function that fails its first two calls, holds the second until released,
    /// and records what later calls commit.
    final class Store: GroupCommitWriter {
        let calls = Mutex(0)
        let reports = Mutex<[GroupCommitBuffer.Report]>([])

        func bufferReported(_ report: GroupCommitBuffer.Report) {
            reports.withLock { $0.append(report) }
        }

        let committed = Mutex<[String]>([])
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        func commit(_ group: [PendingEvent]) -> StorageError? {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            switch call {
            case 1:
                return StorageError(kind: .readOnly, message: "read-only")
            case 2:
                entered.signal()
                release.wait()
                return StorageError(kind: .readOnly, message: "read-only")
            default:
                committed.withLock { $0.append(contentsOf: group.map(\.name)) }
                return nil
            }
        }
    }

    static func event(_ index: Int) -> PendingEvent {
        PendingEvent(messageId: "m\(index)", name: "e\(index)", payload: Array("{}".utf8), createdAt: .now())
    }

    static func waitOn(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    @Test("events dropped while a failing group is being written leave every ticket settled right once the store recovers")
    func dropsDuringAFailingCommitKeepTicketsRight() async throws {
        var configuration = GroupCommitBuffer.Configuration()
        configuration.capacity = 4
        configuration.initialRetryDelay = .milliseconds(1)
        configuration.maxRetryDelay = .milliseconds(1)
        let store = Store()
        let buffer = GroupCommitBuffer(configuration: configuration, label: "test.group-commit", writer: store)

        var tickets = [buffer.append(Self.event(1))]
        await Self.waitOn(store.entered)  // the retry of [e1] is being written, and will fail
        // e2…e5 fill the buffer beside the group in flight; e6 and e7 push e2 and e3 out.
        for index in 2...7 { tickets.append(buffer.append(Self.event(index))) }
        #expect(buffer.settledOutcome(of: tickets[1]) == .dropped)
        #expect(buffer.settledOutcome(of: tickets[2]) == .dropped)
        store.release.signal()  // the retry fails: e1 goes back in front, and out (over capacity)

        let last = await buffer.waitForCommit(tickets[6], until: .now + .seconds(20))
        #expect(last == .committed, "the newest event's wait ends with its commit")
        let committed = store.committed.withLock { $0 }
        #expect(committed == ["e4", "e5", "e6", "e7"])
        for (index, ticket) in tickets.enumerated() {
            let expected: CommitWaitResult = committed.contains("e\(index + 1)") ? .committed : .dropped
            #expect(buffer.settledOutcome(of: ticket) == expected, "e\(index + 1)")
        }
        #expect(buffer.bufferedCount == 0)
    }

    /// A store that fails while `failing` is set, and says when a commit failed.
    final class FlakyStore: GroupCommitWriter {
        let failing = Mutex(false)
        let failed = DispatchSemaphore(value: 0)
        let committed = Mutex<Set<String>>([])

        func commit(_ group: [PendingEvent]) -> StorageError? {
            if failing.withLock({ $0 }) {
                failed.signal()
                return StorageError(kind: .ioError, message: "failing")
            }
            committed.withLock { $0.formUnion(group.map(\.name)) }
            return nil
        }

        func bufferReported(_ report: GroupCommitBuffer.Report) {}
    }

    @Test("a dropped event never reads as committed, however many runs of drops came after it")
    func oldDropsStayDropped() async throws {
        var configuration = GroupCommitBuffer.Configuration()
        configuration.capacity = 1
        configuration.initialRetryDelay = .milliseconds(1)
        configuration.maxRetryDelay = .milliseconds(1)
        let store = FlakyStore()
        let buffer = GroupCommitBuffer(configuration: configuration, label: "test.forgotten-drops", writer: store)
        var dropped: [CommitTicket] = []
        // Each round: one event dropped (the store failing, the buffer full), then one
        // committed: more separate runs of drops than the buffer remembers.
        for round in 0..<(GroupCommitBuffer.maxDroppedRuns + 20) {
            store.failing.withLock { $0 = true }
            let lost = buffer.append(Self.event(2 * round))
            await Self.waitOn(store.failed)  // its commit failed
            let kept = buffer.append(Self.event(2 * round + 1))
            // Dropped by that append, or, when the writer was retrying it at that moment,
            // by the retry's failure (the store fails until it is told otherwise).
            #expect(await buffer.waitForCommit(lost, until: .now + .seconds(20)) == .dropped, "round \(round)")
            #expect(buffer.settledOutcome(of: lost) == .dropped, "round \(round)")
            store.failing.withLock { $0 = false }
            #expect(await buffer.waitForCommit(kept, until: .now + .seconds(20)) == .committed, "round \(round)")
            dropped.append(lost)
        }
        for (round, ticket) in dropped.enumerated() {
            #expect(buffer.settledOutcome(of: ticket) == .dropped, "the event dropped in round \(round)")
        }
        #expect(store.committed.withLock { $0.count } == dropped.count)
    }
}

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
    final class Store: Sendable {
        let calls = Mutex(0)
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
        let buffer = GroupCommitBuffer(configuration: configuration, label: "test.group-commit") { store.commit($0) }

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
}

@testable import Beacon
import BeaconWire
import Dispatch
import Synchronization
import Testing

/// `appendSuspending`: a full buffer suspends the appending task instead of holding its
/// thread, so many appenders on Swift's cooperative pool (two threads on two cores) do
/// not stall it; they go on once a commit makes room, and at most `maxAppendWait` later.
@Suite("Appending from a task while the buffer is full", .timeLimit(.minutes(1)))
struct SuspendingAppendTests {
    /// A writer whose commits wait until released (all of them while `held`).
    final class HeldWriter: GroupCommitWriter {
        let held = Mutex(true)
        let release = DispatchSemaphore(value: 0)
        /// Signalled as a held commit begins.
        let entered = DispatchSemaphore(value: 0)
        let committed = Mutex<[String]>([])
        let reports = Mutex<[GroupCommitBuffer.Report]>([])

        func commit(_ group: [PendingEvent]) -> StorageError? {
            if held.withLock({ $0 }) {
                entered.signal()
                release.wait()
            }
            committed.withLock { $0.append(contentsOf: group.map(\.name)) }
            return nil
        }

        func bufferReported(_ report: GroupCommitBuffer.Report) { reports.withLock { $0.append(report) } }

        func letGo() {
            held.withLock { $0 = false }
            release.signal()
        }

        var dropped: Int {
            reports.withLock { $0.reduce(0) { total, report in if case .dropped(let count, _) = report { total + count } else { total } } }
        }
    }

    /// Waits, off the pool, until the writer holds its first group.
    static func untilHeld(_ writer: HeldWriter) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                writer.entered.wait()
                continuation.resume()
            }
        }
    }

    static func event(_ index: Int) -> PendingEvent {
        PendingEvent(messageId: "m\(index)", name: "e\(index)", payload: Array("{}".utf8), createdAt: .now())
    }

    /// A buffer of capacity 2, full: e0 held in a commit, e1 waiting (its ticket returned).
    static func fullBuffer(maxAppendWait: Duration, writer: HeldWriter) async -> (GroupCommitBuffer, CommitTicket) {
        var configuration = GroupCommitBuffer.Configuration()
        configuration.capacity = 2
        configuration.maxAppendWait = maxAppendWait
        let buffer = GroupCommitBuffer(configuration: configuration, label: "test.suspending-append", writer: writer)
        _ = buffer.append(Self.event(0))  // the writer takes it and holds
        await Self.untilHeld(writer)
        return (buffer, buffer.append(Self.event(1)))
    }

    @Test("64 tasks wait for room at once without holding the pool, and every event is committed once room comes")
    func manyAppendersSuspend() async throws {
        let writer = HeldWriter()
        let (buffer, _) = await Self.fullBuffer(maxAppendWait: .seconds(30), writer: writer)
        try await withThrowingTaskGroup(of: CommitTicket.self) { group in
            for index in 2..<66 { group.addTask { await buffer.appendSuspending(Self.event(index)) } }
            // With appends that hold their threads, no task would get this far: the pool
            // (as wide as the cores) would be stuck in 64 waits.
            while buffer.tasksWaitingForRoom < 64 { await Task.yield() }
            #expect(buffer.bufferedCount == 2)
            writer.letGo()
            var tickets: [CommitTicket] = []
            for try await ticket in group { tickets.append(ticket) }
            for ticket in tickets { #expect(await buffer.waitForCommit(ticket, until: .now + .seconds(20)) == .committed) }
        }
        #expect(writer.dropped == 0)
        #expect(Set(writer.committed.withLock { $0 }) == Set((0..<66).map { "e\($0)" }))
        #expect(writer.committed.withLock { $0.count } == 66, "each event committed once")
    }

    @Test("A request's events go in as room comes, in order, several at a time; each is committed once")
    func severalEventsAtOnce() async throws {
        let writer = HeldWriter()
        let (buffer, _) = await Self.fullBuffer(maxAppendWait: .seconds(30), writer: writer)
        try await withThrowingTaskGroup(of: [CommitTicket].self) { group in
            for task in 0..<8 {
                group.addTask { await buffer.appendSuspending(contentsOf: (0..<25).map { Self.event(100 * (task + 1) + $0) }) }
            }
            while buffer.tasksWaitingForRoom < 8 { await Task.yield() }
            writer.letGo()
            var all: [CommitTicket] = []
            for try await tickets in group {
                #expect(tickets.count == 25)
                #expect(tickets == tickets.sorted(), "a request's events keep their order")
                all += tickets
            }
            for ticket in all { #expect(await buffer.waitForCommit(ticket, until: .now + .seconds(20)) == .committed) }
        }
        let committed = writer.committed.withLock { $0 }
        #expect(committed.count == 202 && writer.dropped == 0, "\(committed.count) committed, \(writer.dropped) dropped")
        for task in 1...8 {
            let mine = committed.filter { $0.hasPrefix("e\(task)") && $0.count == 4 }
            #expect(mine == (0..<25).map { "e\(100 * task + $0)" }, "task \(task)'s events in order")
        }
    }

    @Test("Full by bytes, not by count: the task waits for room for its own event")
    func fullByBytes() async throws {
        let writer = HeldWriter()
        var configuration = GroupCommitBuffer.Configuration()
        configuration.capacity = 1_000
        configuration.capacityBytes = Self.event(0).memoryCost * 2
        configuration.maxAppendWait = .seconds(30)
        let buffer = GroupCommitBuffer(configuration: configuration, label: "test.suspending-append", writer: writer)
        _ = buffer.append(Self.event(0))
        await Self.untilHeld(writer)
        _ = buffer.append(Self.event(1))
        let task = Task { await buffer.appendSuspending(Self.event(2)) }
        // Registered as waiting, not spinning: there is room by count, none by bytes.
        while buffer.tasksWaitingForRoom < 1 { await Task.yield() }
        writer.letGo()
        let ticket = await task.value
        #expect(await buffer.waitForCommit(ticket, until: .now + .seconds(20)) == .committed)
        #expect(writer.dropped == 0)
    }

    @Test("A commit that never ends: the task waits at most maxAppendWait, then goes in; later appends push the oldest out")
    func aStuckCommitBoundsTheWait() async throws {
        let writer = HeldWriter()
        defer { writer.letGo() }
        let (buffer, second) = await Self.fullBuffer(maxAppendWait: .milliseconds(50), writer: writer)
        let start = ContinuousClock.now
        let third = await buffer.appendSuspending(Self.event(2))
        let waited = start.duration(to: .now)
        #expect(waited >= .milliseconds(50), "\(waited)")
        // In beside the group being committed (the buffer holds `capacity` waiting events).
        #expect(buffer.settledOutcome(of: second) == nil && buffer.settledOutcome(of: third) == nil)
        // Stalled: the next append does not wait again, and the oldest waiting event makes room.
        let fourthStart = ContinuousClock.now
        let fourth = await buffer.appendSuspending(Self.event(3))
        #expect(fourthStart.duration(to: .now) < .milliseconds(50))
        #expect(buffer.settledOutcome(of: second) == .dropped, "the oldest buffered event made room")
        #expect(buffer.settledOutcome(of: third) == nil && buffer.settledOutcome(of: fourth) == nil)
        #expect(writer.dropped == 1)
    }

    @Test("A cancelled task does not wait for room")
    func cancelledTaskDoesNotWait() async throws {
        let writer = HeldWriter()
        defer { writer.letGo() }
        let (buffer, _) = await Self.fullBuffer(maxAppendWait: .seconds(30), writer: writer)
        let task = Task { await buffer.appendSuspending(Self.event(2)) }
        while buffer.tasksWaitingForRoom < 1 { await Task.yield() }
        task.cancel()
        let ticket = await task.value
        #expect(buffer.tasksWaitingForRoom == 0)
        #expect(buffer.settledOutcome(of: ticket) == nil, "appended, waiting for its commit")
        #expect(writer.dropped == 0)
    }
}

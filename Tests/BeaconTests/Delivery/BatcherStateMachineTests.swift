import BeaconTesting
import Testing

@testable import Beacon

/// Every input in every state of the batcher's state machine: the state it leaves and the
/// action it asks for, written out by hand for each pair. No actor, no clock, no sleep.
@Suite("Batcher state machine")
struct BatcherStateMachineTests {
    typealias Machine = BatcherStateMachine<ManualClock.Instant, String>
    typealias State = Machine.State

    static func at(_ seconds: Int) -> ManualClock.Instant { ManualClock.Instant(offset: .seconds(seconds)) }
    static let now = at(10)
    static let online = EngineSettings(policy: .manual, batchSize: 10)
    static let offlineSettings = EngineSettings(policy: .manual, batchSize: 10, isOffline: true)

    // One value per state (two where what it carries changes the answers).
    static let idle: State = .idle(after: nil)
    static let idleAfter7: State = .idle(after: 7)
    static let head: State = .draining(.head)
    static let after7: State = .draining(.after(7))
    static let ahead: State = .draining(.readAhead("ahead", through: 20))
    static let readingAfter7: State = .reading(resumeAfter: 7, fromHead: false)
    static let readingHead: State = .reading(resumeAfter: nil, fromHead: true)
    static let batch20: State = .batch(through: 20)
    static let backingOff: State = .backingOff(until: at(20))
    static let paused: State = .paused(reason: "401")
    static let offline: State = .offline(then: nil)
    static let offlinePaused: State = .offline(then: .paused(reason: "401"))
    static let held: State = .held(then: nil)
    static let heldPaused: State = .held(then: .paused(reason: "401"))
    static let offlineHeld: State = .offline(then: .held(then: nil))
    static let allStates = [
        idle, idleAfter7, head, after7, ahead, readingAfter7, readingHead, batch20, backingOff, paused, offline, offlinePaused,
        held, heldPaused, offlineHeld,
    ]

    static func machine(
        _ state: State, failures: Int = 0, splitLimit: Int? = nil, policy: FlushPolicy = .manual, streak: Machine.Streak? = nil,
        isHeld: Bool? = nil
    ) -> Machine {
        Machine(
            state: state, scheduler: FlushScheduler(policy: policy, now: at(0)), retryPolicy: RetryPolicy(), failures: failures,
            splitLimit: splitLimit, streak: streak, isHeld: isHeld)
    }

    /// Applies `input` from each row's state and checks the state left and the action
    /// (each input has its own kind of action, named by `of`).
    /// `isHeld`: whether the operator's hold is asked for (default: as the state says).
    func check<Action: Equatable>(
        _ rows: [(state: State, expected: State, action: Action)], of: Action.Type, isHeld: Bool? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, _ input: (inout Machine) -> Action
    ) {
        #expect(rows.count == Self.allStates.count, "one row per state", sourceLocation: sourceLocation)
        for (index, row) in rows.enumerated() {
            #expect(row.state == Self.allStates[index], "rows in the order of allStates", sourceLocation: sourceLocation)
            var machine = Self.machine(row.state, isHeld: isHeld)
            let action = input(&machine)
            #expect(machine.state == row.expected, "from \(row.state)", sourceLocation: sourceLocation)
            #expect(action == row.action, "from \(row.state)", sourceLocation: sourceLocation)
        }
    }

    /// As ``check(_:of:isHeld:sourceLocation:_:)`` for an input that only records (it has no action).
    func checkState(
        _ rows: [(state: State, expected: State)], isHeld: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ input: (inout Machine) -> Void
    ) {
        check(rows.map { ($0.state, $0.expected, true) }, of: Bool.self, isHeld: isHeld, sourceLocation: sourceLocation) { machine in
            input(&machine)
            return true
        }
    }

    // MARK: Every state × every input

    @Test func wakeOnline() {
        check([
            (Self.idle, Self.idle, .evaluatePolicy),
            (Self.idleAfter7, Self.idleAfter7, .evaluatePolicy),
            (Self.head, Self.head, .drain(reporting: nil)),
            (Self.after7, Self.after7, .drain(reporting: nil)),
            (Self.ahead, Self.ahead, .drain(reporting: nil)),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .armTimer(Self.at(20), reporting: nil)),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.head, .drain(reporting: .idle)),
            (Self.offlinePaused, Self.paused, .reportDestination),
            (Self.held, Self.held, .cancelTimer),
            (Self.heldPaused, Self.heldPaused, .cancelTimer),
            (Self.offlineHeld, Self.held, .goOffline(dropReadAhead: false)),
        ], of: Machine.WakeAction.self) { $0.wake(now: Self.now, settings: Self.online, wentOffline: false) }
    }

    @Test func wakeOffline() {
        check([
            (Self.idle, Self.offline, .goOffline(dropReadAhead: false)),
            (Self.idleAfter7, Self.offline, .goOffline(dropReadAhead: true)),
            (Self.head, Self.offline, .goOffline(dropReadAhead: false)),
            (Self.after7, Self.offline, .goOffline(dropReadAhead: true)),
            (Self.ahead, Self.offline, .goOffline(dropReadAhead: true)),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, .offline(then: .backingOff(until: Self.at(20))), .goOffline(dropReadAhead: false)),
            (Self.paused, Self.offlinePaused, .goOffline(dropReadAhead: false)),
            (Self.offline, Self.offline, .cancelTimer),
            (Self.offlinePaused, Self.offlinePaused, .cancelTimer),
            (Self.held, Self.offlineHeld, .goOffline(dropReadAhead: false)),
            (Self.heldPaused, .offline(then: .held(then: .paused(reason: "401"))), .goOffline(dropReadAhead: false)),
            (Self.offlineHeld, Self.offlineHeld, .cancelTimer),
        ], of: Machine.WakeAction.self) { $0.wake(now: Self.now, settings: Self.offlineSettings, wentOffline: false) }
    }

    /// Online again before the loop saw the switch to offline: it drains all the same.
    @Test func wakeOnlineAfterAnUnseenOffline() {
        check([
            (Self.idle, Self.head, .drain(reporting: .idle)),
            (Self.idleAfter7, Self.after7, .drain(reporting: .idle)),
            (Self.head, Self.head, .drain(reporting: .idle)),
            (Self.after7, Self.after7, .drain(reporting: .idle)),
            (Self.ahead, Self.ahead, .drain(reporting: .idle)),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .armTimer(Self.at(20), reporting: .backingOff(until: Self.at(20)))),
            (Self.paused, Self.paused, .reportDestination),
            (Self.offline, Self.head, .drain(reporting: .idle)),
            (Self.offlinePaused, Self.paused, .reportDestination),
            (Self.held, Self.held, .goOffline(dropReadAhead: false)),
            (Self.heldPaused, Self.heldPaused, .goOffline(dropReadAhead: false)),
            (Self.offlineHeld, Self.held, .goOffline(dropReadAhead: false)),
        ], of: Machine.WakeAction.self) { $0.wake(now: Self.now, settings: Self.online, wentOffline: true) }
    }

    @Test func evaluatePolicy() {
        check([
            (Self.idle, Self.idle, .cancelTimer),
            (Self.idleAfter7, Self.idleAfter7, .cancelTimer),
            (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none),
            (Self.ahead, Self.ahead, .none),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.PolicyAction.self) { $0.evaluatePolicy(depth: 5, now: Self.now) }
    }

    @Test func nextBatch() {
        check([
            (Self.idle, Self.idle, .none),
            (Self.idleAfter7, Self.idleAfter7, .none),
            (Self.head, Self.readingHead, .read(.head, limit: 10, attempt: 1)),
            (Self.after7, Self.readingAfter7, .read(.after(7), limit: 10, attempt: 1)),
            (Self.ahead, Self.batch20, .send("ahead", limit: 10)),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.NextBatchAction.self) { $0.nextBatch(batchSize: 10) }
    }

    @Test func readFailed() {
        let until = ManualClock.Instant(offset: .milliseconds(10_500))  // the first retry waits 0.5 s
        check([
            (Self.idle, Self.idle, .none),
            (Self.idleAfter7, Self.idleAfter7, .none),
            (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none),
            (Self.ahead, Self.ahead, .none),
            (Self.readingAfter7, .backingOff(until: until), .armTimer(until)),
            (Self.readingHead, .backingOff(until: until), .armTimer(until)),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.ReadFailedAction.self) { $0.readFailed(now: Self.now, random: 0) }
    }

    @Test func readFoundNothing() {
        check([
            (Self.idle, Self.idle, .none),
            (Self.idleAfter7, Self.idleAfter7, .none),
            (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none),
            (Self.ahead, Self.ahead, .none),
            (Self.readingAfter7, Self.idleAfter7, .finishDrain),
            (Self.readingHead, Self.idle, .finishDrain),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.ReadFoundNothingAction.self) { $0.readFoundNothing(now: Self.now, random: 0) }
    }

    @Test func batchRead() {
        checkState([
            (Self.idle, Self.idle),
            (Self.idleAfter7, Self.idleAfter7),
            (Self.head, Self.head),
            (Self.after7, Self.after7),
            (Self.ahead, Self.ahead),
            (Self.readingAfter7, .batch(through: 30)),
            (Self.readingHead, .batch(through: 30)),
            (Self.batch20, Self.batch20),
            (Self.backingOff, Self.backingOff),
            (Self.paused, Self.paused),
            (Self.offline, Self.offline),
            (Self.offlinePaused, Self.offlinePaused),
            (Self.held, Self.held),
            (Self.heldPaused, Self.heldPaused),
            (Self.offlineHeld, Self.offlineHeld),
        ]) { $0.batchRead(through: 30) }
    }

    @Test func batchFilteredOut() {
        check([
            (Self.idle, Self.idle, .none),
            (Self.idleAfter7, Self.idleAfter7, .none),
            (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none),
            (Self.ahead, Self.ahead, .none),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, .draining(.after(20)), .settleKeepingLeases),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.BatchFilteredOutAction.self) { $0.batchFilteredOut() }
    }

    @Test func sendDelivered() {
        check([
            (Self.idle, Self.idle, .none),
            (Self.idleAfter7, Self.idleAfter7, .none),
            (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none),
            (Self.ahead, Self.ahead, .none),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, .draining(.readAhead("next", through: 30)), .settleThenReport(keepingLeases: true)),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.SendFinishedAction.self) { $0.sendFinished(.delivered, sent: 3, readAhead: .init(batch: "next", through: 30), now: Self.now, batchSize: 10) }
    }

    @Test func settleScheduled() {
        check([
            (Self.idle, Self.idle, .reportDestination),
            (Self.idleAfter7, Self.idleAfter7, .reportDestination),
            (Self.head, Self.head, .reportDestination),
            (Self.after7, Self.after7, .reportDestination),
            (Self.ahead, Self.ahead, .reportDestination),
            (Self.readingAfter7, Self.readingAfter7, .reportDestination),
            (Self.readingHead, Self.readingHead, .reportDestination),
            (Self.batch20, Self.batch20, .reportDestination),
            (Self.backingOff, Self.backingOff, .armTimer(Self.at(20), reporting: .backingOff(until: Self.at(20)))),
            (Self.paused, Self.paused, .reportDestination),
            (Self.offline, Self.offline, .reportDestination),
            (Self.offlinePaused, Self.offlinePaused, .reportDestination),
            (Self.held, Self.held, .reportDestination),
            (Self.heldPaused, Self.heldPaused, .reportDestination),
            (Self.offlineHeld, Self.offlineHeld, .reportDestination),
        ], of: Machine.SettleScheduledAction.self) { $0.settleScheduled() }
    }

    @Test func drainFinished() {
        check([
            (Self.idle, Self.idle, .reportDestination),
            (Self.idleAfter7, Self.idleAfter7, .reportDestination),
            (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none),
            (Self.ahead, Self.ahead, .none),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.DrainFinishedAction.self) { $0.drainFinished(now: Self.now) }
    }

    @Test func requestFlush() {
        checkState([
            (Self.idle, Self.idle),
            (Self.idleAfter7, Self.idleAfter7),
            (Self.head, Self.head),
            (Self.after7, Self.after7),
            (Self.ahead, Self.ahead),
            (Self.readingAfter7, Self.readingAfter7),
            (Self.readingHead, Self.readingHead),
            (Self.batch20, Self.batch20),
            (Self.backingOff, Self.backingOff),
            (Self.paused, Self.paused),
            (Self.offline, Self.offline),
            (Self.offlinePaused, Self.offlinePaused),
            (Self.held, Self.held),
            (Self.heldPaused, Self.heldPaused),
            (Self.offlineHeld, Self.offlineHeld),
        ]) { $0.requestFlush() }
    }

    @Test func resume() {
        checkState([
            (Self.idle, Self.idle),
            (Self.idleAfter7, Self.idleAfter7),
            (Self.head, Self.head),
            (Self.after7, Self.after7),
            (Self.ahead, Self.ahead),
            (Self.readingAfter7, Self.readingAfter7),
            (Self.readingHead, Self.readingHead),
            (Self.batch20, Self.batch20),
            (Self.backingOff, Self.head),
            (Self.paused, Self.head),
            (Self.offline, Self.offline),
            (Self.offlinePaused, Self.offline),
            (Self.held, Self.held),
            (Self.heldPaused, Self.held),
            (Self.offlineHeld, Self.offlineHeld),
        ]) { $0.resume() }
    }

    @Test func settleDidFail() {
        checkState([
            (Self.idle, Self.idle),
            (Self.idleAfter7, Self.idleAfter7),
            (Self.head, Self.head),
            (Self.after7, Self.after7),
            (Self.ahead, Self.ahead),
            (Self.readingAfter7, Self.readingAfter7),
            (Self.readingHead, Self.readingHead),
            (Self.batch20, Self.batch20),
            (Self.backingOff, Self.backingOff),
            (Self.paused, Self.paused),
            (Self.offline, Self.offline),
            (Self.offlinePaused, Self.offlinePaused),
            (Self.held, Self.held),
            (Self.heldPaused, Self.heldPaused),
            (Self.offlineHeld, Self.offlineHeld),
        ]) { machine in
            machine.settleDidFail()
            #expect(machine.settleFailed)
        }
    }

    @Test func shutdown() {
        check([
            (Self.idle, Self.idle, .finishWakes),
            (Self.idleAfter7, Self.idleAfter7, .finishWakes),
            (Self.head, Self.head, .finishWakes),
            (Self.after7, Self.after7, .finishWakes),
            (Self.ahead, Self.ahead, .finishWakes),
            (Self.readingAfter7, Self.readingAfter7, .finishWakes),
            (Self.readingHead, Self.readingHead, .finishWakes),
            (Self.batch20, Self.batch20, .finishWakes),
            (Self.backingOff, Self.backingOff, .finishWakes),
            (Self.paused, Self.paused, .finishWakes),
            (Self.offline, Self.offline, .finishWakes),
            (Self.offlinePaused, Self.offlinePaused, .finishWakes),
            (Self.held, Self.held, .finishWakes),
            (Self.heldPaused, Self.heldPaused, .finishWakes),
            (Self.offlineHeld, Self.offlineHeld, .finishWakes),
        ], of: Machine.ShutdownAction.self) { machine in
            let action = machine.shutdown()
            #expect(machine.isShuttingDown)
            return action
        }
    }

    @Test func finalFlushOnline() {
        check([
            (Self.idle, Self.head, .finalDrain),
            (Self.idleAfter7, Self.after7, .finalDrain),
            (Self.head, Self.head, .finalDrain),
            (Self.after7, Self.after7, .finalDrain),
            (Self.ahead, Self.ahead, .finalDrain),
            (Self.readingAfter7, Self.readingAfter7, .finalDrain),
            (Self.readingHead, Self.readingHead, .finalDrain),
            (Self.batch20, Self.batch20, .finalDrain),
            (Self.backingOff, Self.head, .finalDrain),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.head, .finalDrain),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.FinalFlushAction.self) { $0.finalFlush(isOffline: false) }
    }

    /// A server that asked for quiet past the final flush's deadline gets none; one whose
    /// wait ends before it, or a backoff of the engine's own, is drained as usual.
    @Test func finalFlushKeepsToAServersRetryAfter() {
        let asked = Machine.Streak(attempts: 1, since: Self.now, quietUntil: Self.at(20))
        var waiting = Self.machine(Self.backingOff, failures: 1, streak: asked)
        #expect(waiting.finalFlush(isOffline: false, deadline: Self.at(15)) == .keepsServersWait(until: Self.at(20)))
        #expect(waiting.state == Self.backingOff, "the events stay queued, the backoff as it was")
        var offlineWaiting = Self.machine(.offline(then: .backingOff(until: Self.at(20))), failures: 1, streak: asked)
        #expect(offlineWaiting.finalFlush(isOffline: false, deadline: Self.at(15)) == .keepsServersWait(until: Self.at(20)))
        var pastIt = Self.machine(Self.backingOff, failures: 1, streak: asked)
        #expect(pastIt.finalFlush(isOffline: false, deadline: Self.at(25)) == .finalDrain)
        var ownBackoff = Self.machine(Self.backingOff, failures: 1, streak: Machine.Streak(attempts: 1, since: Self.now))
        #expect(ownBackoff.finalFlush(isOffline: false, deadline: Self.at(15)) == .finalDrain)
    }

    /// A 429's `Retry-After` is kept in the streak (as far as the backoff goes), cleared by a delivery.
    @Test func aServersRetryAfterIsKeptUntilADelivery() {
        var machine = Self.machine(.batch(through: 20))
        _ = machine.sendFinished(
            .retry(after: .seconds(600), reason: "HTTP 429", serverAsked: .seconds(86_400)), sent: 20, readAhead: nil, now: Self.now,
            batchSize: 20)
        #expect(machine.streak?.quietUntil == Self.now.advanced(by: .seconds(600)))
        var own = Self.machine(.batch(through: 20))
        _ = own.sendFinished(.retry(after: .seconds(2), reason: "HTTP 503"), sent: 20, readAhead: nil, now: Self.now, batchSize: 20)
        #expect(own.streak != nil && own.streak?.quietUntil == nil)
    }

    @Test func finalFlushOffline() {
        check([
            (Self.idle, Self.idle, .none),
            (Self.idleAfter7, Self.idleAfter7, .none),
            (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none),
            (Self.ahead, Self.ahead, .none),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.backingOff, .none),
            (Self.paused, Self.paused, .none),
            (Self.offline, Self.offline, .none),
            (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none),
            (Self.heldPaused, Self.heldPaused, .none),
            (Self.offlineHeld, Self.offlineHeld, .none),
        ], of: Machine.FinalFlushAction.self) { $0.finalFlush(isOffline: true) }
    }

    // MARK: What the states carry

    @Test func eachSendDecisionFromABatch() {
        let event = QueuedEvent(sequence: 18, messageId: "m18", name: "e", payload: Array("{}".utf8))
        let rejected = RejectedEvent(event: event, reason: "bad")
        let next = Machine.ReadAhead(batch: "next", through: 30)
        // From a batch through 20 of 3 events, with 2 failures before it and a split limit of 4.
        let cases: [(DeliveryDecision, State, Machine.SendFinishedAction, failures: Int, lastError: String?, split: Int?)] = [
            (.delivered, .draining(.readAhead("next", through: 30)), .settleThenReport(keepingLeases: true), 0, nil, 8),
            (.retry(after: .seconds(3), reason: "HTTP 503"), .backingOff(until: Self.at(13)), .settleThenReport(keepingLeases: false), 3, "HTTP 503", 4),
            (.deadLetter([rejected]), .draining(.head), .settleThenReport(keepingLeases: false), 0, nil, 4),
            (.deadLetter([rejected, rejected, rejected]), .draining(.readAhead("next", through: 30)), .settleThenReport(keepingLeases: true), 0, nil, 4),
            (.split(limit: 2), .draining(.head), .settleThenReport(keepingLeases: false), 2, nil, 2),
            (.isolate(limit: 2, reason: "gave up"), .draining(.head), .settleThenReport(keepingLeases: false), 3, "gave up", 2),
            (.pause(reason: "HTTP 401"), .paused(reason: "HTTP 401"), .settleThenReport(keepingLeases: false), 2, "HTTP 401", 4),
        ]
        for (decision, expected, action, failures, lastError, split) in cases {
            var machine = Self.machine(Self.batch20, failures: 2, splitLimit: 4)
            let got = machine.sendFinished(decision, sent: 3, readAhead: next, now: Self.now, batchSize: 10)
            #expect(machine.state == expected, "\(decision)")
            #expect(got == action, "\(decision)")
            #expect(machine.failures == failures, "\(decision)")
            #expect(machine.lastError == lastError, "\(decision)")
            #expect(machine.splitLimit == split, "\(decision)")
        }
    }

    @Test func aDeliveryClearsTheFailuresAndTheLastError() {
        var machine = Self.machine(Self.batch20, failures: 1)
        _ = machine.sendFinished(.retry(after: .seconds(1), reason: "HTTP 503"), sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        #expect(machine.reported == .backingOff(until: Self.at(11)))
        #expect(machine.wake(now: Self.at(11), settings: Self.online, wentOffline: false) == .drain(reporting: nil))
        #expect(machine.nextBatch(batchSize: 10) == .read(.head, limit: 10, attempt: 3))
        machine.batchRead(through: 20)
        #expect(machine.lastError == "HTTP 503")
        _ = machine.sendFinished(.delivered, sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        #expect(machine.failures == 0)
        #expect(machine.lastError == nil)
        #expect(machine.state == .draining(.after(20)))
    }

    @Test func deliveriesDoubleTheSplitLimitBackToTheBatchSize() {
        var machine = Self.machine(Self.batch20, splitLimit: 3)
        var limits: [Int?] = []
        for _ in 0..<3 {
            _ = machine.sendFinished(.delivered, sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
            limits.append(machine.splitLimit)
            #expect(machine.state == .draining(.after(20)))
            machine = Self.machine(Self.batch20, splitLimit: machine.splitLimit)
        }
        #expect(limits == [6, nil, nil])
        var split = Self.machine(Self.head, splitLimit: 6)
        #expect(split.nextBatch(batchSize: 10) == .read(.head, limit: 6, attempt: 1))
    }

    @Test func aFailedSettleSendsTheNextReadFromTheHeadButNotTheReadAhead() {
        var machine = Self.machine(Self.after7)
        machine.settleDidFail()
        #expect(machine.nextBatch(batchSize: 10) == .read(.head, limit: 10, attempt: 1))
        #expect(machine.state == .reading(resumeAfter: 7, fromHead: true))
        #expect(machine.settleFailed, "cleared by the read, not before it")
        #expect(machine.readFoundNothing(now: Self.now, random: 0) == .finishDrain)
        #expect(!machine.settleFailed)
        #expect(machine.state == Self.idleAfter7, "nothing found: the drain still resumes after 7")

        var ahead = Self.machine(Self.ahead)
        ahead.settleDidFail()
        #expect(ahead.nextBatch(batchSize: 10) == .send("ahead", limit: 10))
        #expect(ahead.settleFailed, "kept for the next read")

        var after = Self.machine(Self.after7)
        _ = after.nextBatch(batchSize: 10)
        after.settleDidFail()  // lands during the read after 7
        after.batchRead(through: 17)
        #expect(after.settleFailed, "a read after a sequence leaves it for the next")
    }

    @Test func aFlushRequestStartsADrainWhereTheLastEnded() {
        var machine = Self.machine(Self.idleAfter7)
        machine.requestFlush()
        #expect(machine.evaluatePolicy(depth: 0, now: Self.now) == .startDrain(.manual))
        #expect(machine.state == Self.after7)
        var counting = Self.machine(Self.idle, policy: .count(5))
        #expect(counting.evaluatePolicy(depth: 4, now: Self.now) == .cancelTimer)
        #expect(counting.evaluatePolicy(depth: 5, now: Self.now) == .startDrain(.count))
        #expect(counting.state == Self.head)
        var interval = Self.machine(Self.idle, policy: .interval(.seconds(5)))
        #expect(interval.wake(now: Self.now, settings: EngineSettings(policy: .interval(.seconds(5))), wentOffline: false) == .evaluatePolicy)
        #expect(interval.evaluatePolicy(depth: 1, now: Self.now) == .armTimer(Self.at(15)))
    }

    @Test func anExpiredBackoffDrainsFromTheHead() {
        var machine = Self.machine(.backingOff(until: Self.at(5)))
        #expect(machine.wake(now: Self.now, settings: Self.online, wentOffline: false) == .drain(reporting: nil))
        #expect(machine.state == Self.head)
        var back = Self.machine(.offline(then: .backingOff(until: Self.at(5))))
        #expect(back.wake(now: Self.now, settings: Self.online, wentOffline: false) == .drain(reporting: .backingOff(until: Self.at(5))))
        #expect(back.state == Self.head)
        var waiting = Self.machine(.offline(then: .backingOff(until: Self.at(20))))
        #expect(waiting.wake(now: Self.now, settings: Self.online, wentOffline: false) == .armTimer(Self.at(20), reporting: .backingOff(until: Self.at(20))))
        #expect(waiting.state == Self.backingOff)
    }

    @Test func theReportedStateComesFromTheState() {
        let expected: [Machine.Reported] = [
            .idle, .idle, .idle, .idle, .idle, .idle, .idle, .idle, .backingOff(until: Self.at(20)), .paused(reason: "401"), .offline, .offline,
            .held, .held, .offline,
        ]
        #expect(Self.allStates.map { Self.machine($0).reported } == expected)
        #expect(Self.allStates.map { Self.machine($0).isDraining } == [false, false, true, true, true, true, true, true, false, false, false, false, false, false, false])
        #expect(Self.allStates.map { Self.machine($0).hasReadAhead } == [false, false, false, false, true, false, false, false, false, false, false, false, false, false, false])
    }

    @Test func aStartingMachineIsIdleOrOffline() {
        let starting = Machine(policy: .manual, isOffline: false, retryPolicy: RetryPolicy(), now: Self.now)
        #expect(starting.state == Self.idle)
        let offline = Machine(policy: .manual, isOffline: true, retryPolicy: RetryPolicy(), now: Self.now)
        #expect(offline.state == Self.offline)
    }
}

extension BatcherStateMachineTests {
    /// Only an idle machine holds commits to its policy's threshold; in every other state
    /// each commit wakes the batcher, as it always did.
    @Test func commitWakeThresholdIsThePolicysOnlyWhileIdle() {
        let now = ManualClock.Instant(offset: .zero)
        let manual = Machine(policy: .manual, isOffline: false, retryPolicy: RetryPolicy(), now: now)
        #expect(manual.commitWakeThreshold(timerArmed: false) == nil)
        let counting = Machine(policy: .any([.count(50), .interval(.seconds(5))]), isOffline: false, retryPolicy: RetryPolicy(), now: now)
        #expect(counting.commitWakeThreshold(timerArmed: true) == 50)
        #expect(counting.commitWakeThreshold(timerArmed: false) == 1)
        let scheduler = FlushScheduler(policy: .manual, now: now)
        for state: State in [
            .draining(.head), .reading(resumeAfter: nil, fromHead: true), .batch(through: 9),
            .backingOff(until: now), .paused(reason: "401"), .offline(then: nil), .held(then: nil),
        ] {
            let machine = Machine(state: state, scheduler: scheduler, retryPolicy: RetryPolicy())
            #expect(machine.commitWakeThreshold(timerArmed: false) == 1, "\(state)")
        }
    }
}

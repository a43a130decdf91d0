import BeaconTesting
import Testing

@testable import Beacon

/// The operator's pause (`hold`) and resume (`release`): every state, by hand.
extension BatcherStateMachineTests {
    @Test func holdOnlyAsks() {
        checkState([
            (Self.idle, Self.idle), (Self.idleAfter7, Self.idleAfter7), (Self.head, Self.head),
            (Self.after7, Self.after7), (Self.ahead, Self.ahead), (Self.readingAfter7, Self.readingAfter7),
            (Self.readingHead, Self.readingHead), (Self.batch20, Self.batch20), (Self.backingOff, Self.backingOff),
            (Self.paused, Self.paused), (Self.offline, Self.offline), (Self.offlinePaused, Self.offlinePaused),
            (Self.held, Self.held), (Self.heldPaused, Self.heldPaused), (Self.offlineHeld, Self.offlineHeld),
        ]) { machine in
            machine.hold()
            #expect(machine.isHeld)
        }
    }

    @Test func releaseOnlyAsks() {
        checkState([
            (Self.idle, Self.idle), (Self.idleAfter7, Self.idleAfter7), (Self.head, Self.head),
            (Self.after7, Self.after7), (Self.ahead, Self.ahead), (Self.readingAfter7, Self.readingAfter7),
            (Self.readingHead, Self.readingHead), (Self.batch20, Self.batch20), (Self.backingOff, Self.backingOff),
            (Self.paused, Self.paused), (Self.offline, Self.offline), (Self.offlinePaused, Self.offlinePaused),
            (Self.held, Self.held), (Self.heldPaused, Self.heldPaused), (Self.offlineHeld, Self.offlineHeld),
        ]) { machine in
            machine.release()
            #expect(!machine.isHeld)
        }
    }

    /// A hold asked for: the next wake stops sending, keeping what held beneath (a batch
    /// under way finishes first).
    @Test func wakeWhileHoldIsAskedFor() {
        check([
            (Self.idle, Self.held, .goOffline(dropReadAhead: false)),
            (Self.idleAfter7, Self.held, .goOffline(dropReadAhead: true)),
            (Self.head, Self.held, .goOffline(dropReadAhead: false)),
            (Self.after7, Self.held, .goOffline(dropReadAhead: true)),
            (Self.ahead, Self.held, .goOffline(dropReadAhead: true)),
            (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none),
            (Self.batch20, Self.batch20, .none),
            (Self.backingOff, .held(then: .backingOff(until: Self.at(20))), .goOffline(dropReadAhead: false)),
            (Self.paused, Self.heldPaused, .goOffline(dropReadAhead: false)),
            (Self.offline, Self.held, .goOffline(dropReadAhead: false)),
            (Self.offlinePaused, Self.heldPaused, .goOffline(dropReadAhead: false)),
            (Self.held, Self.held, .cancelTimer),
            (Self.heldPaused, Self.heldPaused, .cancelTimer),
            (Self.offlineHeld, Self.held, .goOffline(dropReadAhead: false)),
        ], of: Machine.WakeAction.self, isHeld: true) { $0.wake(now: Self.now, settings: Self.online, wentOffline: false) }
    }

    /// Released: the next wake drains what waited, unless a credentials pause still holds.
    @Test func wakeAfterRelease() {
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
            (Self.held, Self.head, .drain(reporting: .idle)),
            (Self.heldPaused, Self.paused, .reportDestination),
            (Self.offlineHeld, Self.head, .drain(reporting: .idle)),
        ], of: Machine.WakeAction.self, isHeld: false) { $0.wake(now: Self.now, settings: Self.online, wentOffline: false) }
    }

    @Test func aHeldBackoffThatExpiredDrainsOnRelease() {
        var machine = Self.machine(.held(then: .backingOff(until: Self.at(5))), isHeld: false)
        #expect(machine.wake(now: Self.now, settings: Self.online, wentOffline: false) == .drain(reporting: .backingOff(until: Self.at(5))))
        #expect(machine.state == Self.head)
        var waiting = Self.machine(.held(then: .backingOff(until: Self.at(20))), isHeld: false)
        #expect(waiting.wake(now: Self.now, settings: Self.online, wentOffline: false) == .armTimer(Self.at(20), reporting: .backingOff(until: Self.at(20))))
    }

    @Test func aHoldAskedForDuringABatchStopsAfterIt() {
        var machine = Self.machine(Self.batch20)
        machine.hold()
        #expect(machine.sendFinished(.delivered, sent: 3, readAhead: .init(batch: "next", through: 30), now: Self.now, batchSize: 10)
            == .settleThenReport(keepingLeases: true))
        #expect(machine.isDraining, "the loop looks again")
        #expect(machine.wake(now: Self.now, settings: Self.online, wentOffline: false) == .goOffline(dropReadAhead: true))
        #expect(machine.state == Self.held)
        #expect(machine.reported == .held)
        #expect(machine.finalFlush(isOffline: false) == .none, "a held destination keeps its events at shutdown")
    }
}

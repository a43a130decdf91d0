import BeaconTesting
import Testing

@testable import Beacon

/// The operator's retry now (`endBackoff`): every state, by hand.
extension BatcherStateMachineTests {
    /// Only a backoff ends, kept under offline or a hold or not; pauses and offline stay.
    @Test func endBackoffEndsOnlyABackoff() {
        check([
            (Self.idle, Self.idle, .noBackoff), (Self.idleAfter7, Self.idleAfter7, .noBackoff), (Self.head, Self.head, .noBackoff),
            (Self.after7, Self.after7, .noBackoff), (Self.ahead, Self.ahead, .noBackoff), (Self.readingAfter7, Self.readingAfter7, .noBackoff),
            (Self.readingHead, Self.readingHead, .noBackoff), (Self.batch20, Self.batch20, .noBackoff),
            (Self.backingOff, Self.head, .reportDestination),
            (Self.paused, Self.paused, .noBackoff), (Self.offline, Self.offline, .noBackoff), (Self.offlinePaused, Self.offlinePaused, .noBackoff),
            (Self.held, Self.held, .noBackoff), (Self.heldPaused, Self.heldPaused, .noBackoff), (Self.offlineHeld, Self.offlineHeld, .noBackoff),
        ], of: Machine.EndBackoffAction.self) { $0.endBackoff() }
    }

    /// A backoff that offline or a hold keeps is dropped: they end into a drain.
    @Test func endBackoffDropsAKeptBackoff() {
        let rows: [(State, State)] = [
            (.offline(then: .backingOff(until: Self.at(20))), .offline(then: nil)),
            (.held(then: .backingOff(until: Self.at(20))), .held(then: nil)),
            (.offline(then: .held(then: .backingOff(until: Self.at(20)))), .offline(then: .held(then: nil))),
        ]
        for (state, expected) in rows {
            var machine = Self.machine(state)
            #expect(machine.endBackoff() == .reportDestination, "\(state)")
            #expect(machine.state == expected, "\(state)")
        }
    }

    /// After a retry now the wake drains from the head at once: no timer for the old backoff.
    @Test func aWakeAfterRetryNowDrains() {
        var machine = Self.machine(Self.backingOff, failures: 3)
        _ = machine.endBackoff()
        #expect(machine.wake(now: Self.now, settings: Self.online, wentOffline: false) == .drain(reporting: nil))
        #expect(machine.failures == 3, "the failures in a row still count: the next failure backs off longer")
    }
}
